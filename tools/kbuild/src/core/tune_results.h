// What a `kbuild tune` run keeps and concludes: history.jsonl (one line per
// evaluated variant, so an interrupted run loses nothing and --resume knows
// what is done) and the ranking of the valid variants, overall and per shape
// bucket.
//
// A history line is a JSON object:
//   {"id": "v-3f9a...", "params": {"BLOCK": "256", "VECS": "4"}, "stage": "done",
//    "reason": "", "tests": "full", "spill_bytes": 0, "build_seconds": 41.5,
//    "test_seconds": 4.1, "bench_seconds": 5.7,
//    "cases": [{"name": "rms_norm/8192x4096 bf16", "median_us": 12.5,
//               "percent_of_peak": 83.1, "bytes": 134217728}]}
// Stages are the words of TuneStageWord, tests those of TuneTestsWord; a line
// without "tests" (written before finalists existed, when every variant ran
// the full suite) reads as "full". A finalist's full test appends the
// variant's line again. The file is hostile input: it is read
// through FileSystem with the kMaxResultsBytes limit and every value is checked.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/tune_types.h"

namespace kb {

// "pending", "build-failed", "test-failed", "bench-failed", "spills", "lost", "done".
std::string TuneStageWord(TuneStage stage);
std::optional<TuneStage> TuneStageFromWord(std::string_view word);
// "none", "filter", "full".
std::string TuneTestsWord(TuneTests tests);
std::optional<TuneTests> TuneTestsFromWord(std::string_view word);

// One history line, without its '\n'.
std::string HistoryLine(const TuneEvaluation& evaluation);
// The record one line holds, or nothing with `problem` naming the first bad key.
std::optional<TuneEvaluation> ParseHistoryLine(std::string_view text, std::string* problem);

// Adds HistoryLine(evaluation) to the history at `path` (created if absent).
// The whole file is rewritten through FileSystem::Write (temp file + rename),
// so a kill leaves either the old or the new file. A last line cut short by an
// earlier kill is dropped first. A history past kMaxResultsBytes is an error.
Status AppendHistory(FileSystem& fs, const std::filesystem::path& path,
                     const TuneEvaluation& evaluation);

struct TuneHistory {
  std::vector<TuneEvaluation> evaluations;  // in order of first appearance
  std::vector<std::string> warnings;        // e.g. the skipped last line
};

// Reads a history; an absent file is an empty history. A later line for an id
// replaces the earlier one in place (a resumed run evaluates a pending variant
// again). A last line that is not a valid record (a kill cut it) is skipped
// with a warning; an invalid line elsewhere is an exit-2 error naming the file,
// the line and the key.
Expected<TuneHistory> ReadHistory(const FileSystem& fs, const std::filesystem::path& path);

// A valid variant's place: its score is the geometric mean over the
// performance cases of (baseline median / its median); > 1 is faster.
struct RankedVariant {
  std::string id;
  double score = 0;
  std::string worst_case;    // the case of the lowest speedup
  double worst_speedup = 0;  // baseline median / its median in that case
};

struct UnrankedVariant {
  std::string id;
  std::string reason;  // "build-failed: <reason>", "missing case <name>", ...
};

struct TuneRanking {
  std::vector<RankedVariant> ranked;  // fully tested, best first; equal scores by id
  // Benchmarked (values checked) but not through the full test suite: scored
  // like `ranked`, never best in a bucket.
  std::vector<RankedVariant> screened;
  // Valid variants that could not be scored (missing cases) first, then the
  // invalid and pending ones, each in evaluation order.
  std::vector<UnrankedVariant> unranked;
};

// The performance cases are the baseline's cases with a time. Only kDone
// variants are scored (ranked when fully tested, else screened); one missing
// any performance case is unranked with a reason.
// Errors when `baseline_id` is not a kDone evaluation with a timed case.
Expected<TuneRanking> RankVariants(const std::vector<TuneEvaluation>& evaluations,
                                   const std::string& baseline_id);

// `ranked` and `screened` together, best first: the finalists' order.
std::vector<RankedVariant> ScoredByRank(const TuneRanking& ranking);

// `preferred_id` when that variant is valid, else the first valid variant,
// else "" (nothing can be ranked).
std::string ChooseBaselineId(const std::vector<TuneEvaluation>& evaluations,
                             const std::string& preferred_id);

// Shape buckets by the bytes a case moves: powers of 4 from 64 KiB to 1 GiB,
// then "larger".
struct ShapeBucket {
  std::string label;        // "<= 64 KiB", "<= 256 KiB", ..., "<= 1 GiB", "larger"
  long long max_bytes = 0;  // the bucket's upper bound; -1 for "larger"
};
ShapeBucket ShapeBucketOf(double bytes);

struct BucketBest {
  ShapeBucket bucket;
  std::string id;  // the best ranked variant over the bucket's cases; ties by id
  double score = 0;
  int cases = 0;  // the baseline's cases in the bucket
};

// Who competes for a bucket: the fully tested variants (the best that
// tuned_config.h may use), or the screened ones too (the candidates for a
// finalist's full tests).
enum class BucketContenders { kFullyTested, kScored };

// One entry per bucket holding a performance case of known bytes (bytes > 0),
// smallest bucket first, over the variants RankVariants ranks (kFullyTested)
// or ranks and screens (kScored).
Expected<std::vector<BucketBest>> BestPerBucket(
    const std::vector<TuneEvaluation>& evaluations, const std::string& baseline_id,
    BucketContenders contenders = BucketContenders::kFullyTested);

}  // namespace kb
