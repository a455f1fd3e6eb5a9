// The values `kbuild tune` passes between its parts: a search space's
// parameters (tune_space.h reads them from kbuild.toml and generates
// variants), a variant (one value per parameter, compiled in as -DNAME=VALUE),
// and what evaluating a variant gave (tune_results.h records, ranks and
// renders them).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kb {

// One tunable parameter: a macro name (C identifier, upper case by
// convention) and the values it may take, as written in kbuild.toml
// (integers or identifiers), in the declared order.
struct TuneParam {
  std::string name;
  std::vector<std::string> values;
};

// One point of the space: a value per parameter, in the space's order.
struct TuneVariant {
  std::vector<std::pair<std::string, std::string>> values;  // (name, value)
  std::string id;  // stable: the same values give the same id (e.g. "v-3f9a1c2e")
};

// The baseline's id: the project as it is, built without --define.
inline constexpr const char* kTuneDefaultsId = "defaults";

// How a variant fared. Invalid variants (any stage failed) never rank. kLost: --backend queue
// or slurm, its workers went silent past the lease three times or could not read it.
enum class TuneStage { kPending, kBuildFailed, kTestFailed, kBenchFailed, kSpills, kLost, kDone };

// The tests a benchmarked variant passed. Every variant's benchmark checks its
// values against the reference before and after timing; only a variant that
// passed the full suite may rank as best or enter tuned_config.h.
enum class TuneTests {
  kNone,      // the benchmark's value checks only
  kFiltered,  // also `kbuild test --filter <[tune] test-filter>`
  kFull,      // the full `kbuild test` suite
};

// One benchmark case of one variant.
struct TuneCaseTime {
  std::string name;  // "<benchmark>/<case>", as kbuild bench names it
  double median_us = 0;
  double percent_of_peak = 0;  // 0 = unknown
  double bytes = 0;            // what the case must move (shape bucket)
};

struct TuneEvaluation {
  TuneVariant variant;
  TuneStage stage = TuneStage::kPending;
  std::string reason;  // why it is invalid: the first error line, "" when kDone
  TuneTests tests = TuneTests::kNone;
  int spill_bytes = 0;
  double build_seconds = 0;
  double test_seconds = 0;   // wall time of its GPU test steps (filtered, then a finalist's full)
  double bench_seconds = 0;  // wall time of its benchmark
  std::vector<TuneCaseTime> cases;  // performance cases only (kDone)
};

}  // namespace kb
