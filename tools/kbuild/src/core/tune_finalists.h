// Which variants of a `kbuild tune` run get the full test suite. Every
// variant is benchmarked (the benchmark checks its values against the
// reference before and after timing); the full `kbuild test` then runs on the
// best-scored ones only, best first, until `wanted` of them passed it (a
// finalist that fails is invalid and the next one is tested in its place).
// Only variants that passed the full suite may rank as best.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tune_results.h"
#include "core/tune_types.h"

namespace kb {

// --full-tests: variants of the space (besides the defaults, always tested)
// that must pass the full suite; "all" tests every variant before its
// benchmark, as runs did before finalists existed.
inline constexpr size_t kDefaultTuneFullTests = 3;
inline constexpr size_t kTuneFullTestsAll = SIZE_MAX;

// "all" or a count 0..10000; exit 2 otherwise.
Expected<size_t> ParseFullTests(const std::string& text);

// A bucket's leader is worth its full tests only when it beats the bucket's
// best fully tested variant by more than run-to-run noise.
inline constexpr double kBucketLeaderMargin = 1.02;

// The next finalist: walking the scored variants best first (ScoredByRank,
// `defaults_id` left out), the first one not fully tested, unless `wanted`
// fully tested ones come before it; then (when `wanted` > 0) the leader of
// each shape bucket among the scored variants (`bucket_leaders`,
// BestPerBucket over BucketContenders::kScored) that is not fully tested and
// beats that bucket's best fully tested one (`bucket_tested`, over
// kFullyTested) by kBucketLeaderMargin, so that tuned_config.h can pick it for
// its bucket. nullopt when nothing is left to test.
std::optional<std::string> NextFinalist(const TuneRanking& ranking, size_t wanted,
                                        const std::string& defaults_id,
                                        const std::vector<BucketBest>& bucket_leaders = {},
                                        const std::vector<BucketBest>& bucket_tested = {});

// Fully tested variants of the space among the scored ones.
size_t FullyTestedCount(const TuneRanking& ranking, const std::string& defaults_id);

// "~40 s left", "~12 min left", "~2 h 05 min left": an estimate of the time
// left, for progress lines.
std::string TuneTimeLeftText(double seconds);

}  // namespace kb
