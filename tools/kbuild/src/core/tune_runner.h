// `kbuild tune`'s run: the project's defaults first (the baseline), then the
// variants of the kbuild.toml [tune] space a strategy picks. Each variant is
// built in its own copy of the project (tune_workspace.h), up to
// `build_jobs` builds at once on the CPUs, then benchmarked one at a time on
// the GPU (after the [tune] test-filter tests, if any), each step a child
// `kbuild -C <copy> build|test|bench --define ... --json` (tune_child.h).
// Then the finalists (tune_finalists.h): the full test suite on the best
// variants until `full_tests` passed; the defaults run it before their
// benchmark, and so does every variant with full_tests = kTuneFullTestsAll. Every finished variant
// is appended to <run>/history.jsonl at once, so a kill loses at most the ones in flight and
// --resume skips what is recorded (a finalist's full test is recorded too, so
// a run killed among the finalists resumes there). At the end, or on a stop, the ranking is
// written: summary.md, heatmap.svg and tuned_config.h (tune_render.h).
//
// The file system and the process runner are injected: unit tests drive a
// whole run with MemoryFileSystem and FakeProcessRunner. So is where the
// variants are evaluated (TuneEvaluator: this host, or queue workers on other
// hosts through tune_queue.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"
#include "core/tune_evaluate.h"
#include "core/tune_finalists.h"
#include "core/tune_results.h"
#include "core/tune_types.h"

namespace kb {

// Variants a run evaluates when --budget does not say.
inline constexpr size_t kDefaultTuneBudget = 256;

struct TuneOptions {
  std::filesystem::path project_dir;  // absolute
  std::filesystem::path kbuild_exe;   // what the children run (the running kbuild)
  std::string strategy = "grid";      // "grid", "random" or "evolve"
  std::optional<size_t> budget;       // variants besides the defaults; none = all valid, <= 256
  double time_limit_seconds = 0;      // 0 = none; no new variant starts after it
  uint64_t seed = 0;
  int build_jobs = 2;
  std::optional<std::string> filter;            // kbuild bench --filter; none: [tune] bench-filter
  std::optional<std::string> test_filter;       // none: [tune] test-filter ("" = no tests)
  size_t full_tests = kDefaultTuneFullTests;    // finalists; kTuneFullTestsAll = every variant
  std::optional<std::filesystem::path> resume;  // --resume DIR as given
  std::string stamp;                            // the new run folder is results/tune-<stamp>
  std::function<void(const std::string&)> progress;
  std::function<double()> seconds_now;  // a clock for --time; default steady_clock
  // Where the variants are evaluated, made once the run folder and the project's snapshot are
  // known (kbuild tune --backend queue|slurm: tune_queue.h); none: on this host, build_jobs
  // builds at once (LocalTuneEvaluator).
  std::function<Expected<std::unique_ptr<TuneEvaluator>>(const std::filesystem::path& run_dir,
                                                         const ProjectSnapshot& snapshot)>
      make_evaluator;
};

struct TuneRunResult {
  std::filesystem::path run_dir;
  std::vector<TuneEvaluation> evaluations;  // the whole history, defaults first
  std::string baseline_id;                  // "" when nothing could be ranked
  TuneRanking ranking;
  std::vector<BucketBest> best;
  int evaluated_now = 0;         // variants this invocation added to the history
  bool stopped = false;          // Ctrl-C / SIGTERM: resume with --resume run_dir
  bool time_up = false;          // --time ran out before the budget
  int finalists_tested_now = 0;  // full suites this invocation ran on finalists
  // The search itself (after the defaults, before the finalists' full suites): the variants
  // it added now and its wall time, the steady rate that more GPUs should multiply.
  int searched_now = 0;
  double search_seconds = 0;
  std::vector<std::filesystem::path> files;  // summary.md, heatmap.svg, tuned_config.h
  std::vector<std::string> warnings;
};

// The whole run. Errors: exit 2 for a bad kbuild.toml, --strategy or
// --resume; 1 when the defaults fail (nothing to compare against; the
// history keeps why); 4 when a child reports no GPU, nvcc or torch (after the
// defaults' build, so compile errors show on any machine). A stop is not an
// error: the result says `stopped` and holds what finished.
Expected<TuneRunResult> RunTune(FileSystem& fs, ProcessRunner& runner, const TuneOptions& options);

// Ranks what r.evaluations hold and writes summary.md, heatmap.svg and (when a
// fully tested variant of the space ranks) tuned_config.h into r.run_dir,
// filling r.baseline_id, ranking, best and files; problems become warnings.
void WriteTuneConclusions(FileSystem& fs, const TuneOptions& options, TuneRunResult& r);

// "BLOCK=256 VECS=2" ("(defaults)" for none).
std::string TuneValuesText(const TuneVariant& variant);

}  // namespace kb
