#include "core/tune_evaluate.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <optional>

#include "core/json_fields.h"
#include "core/paths.h"
#include "core/report.h"
#include "core/stop_signal.h"
#include "core/tune_child.h"
#include "core/tune_results.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

struct TimedRun {
  ProcessResult result;
  double seconds = 0;
};

// One variant whose build runs (or ran) on a worker thread.
struct BuildJob {
  TuneVariant variant;
  fs::path copy;
  std::future<TimedRun> build;
};

// What judging a built variant came to.
struct Judged {
  bool recorded = false;       // false: stopped before the end, nothing recorded
  std::optional<Error> error;  // exit 4 from a child, or a write failure
};

TimedRun RunTimed(ProcessRunner& runner, std::vector<std::string> argv) {
  const auto start = std::chrono::steady_clock::now();
  TimedRun run;
  run.result = runner.Run(argv, RunOptions{});
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

Error EnvironmentError(const TuneVariant& variant, const std::string& step,
                       const std::string& reason) {
  return MakeError(ExitCode::kEnvironment,
                   "kbuild " + step + " of " + variant.id + " cannot run here: " + reason,
                   "kbuild tune needs what kbuild " + step +
                       " needs (a GPU for tests and benchmarks); kbuild doctor says what is "
                       "missing");
}

class Evaluator {
 public:
  Evaluator(FileSystem& fs, ProcessRunner& runner, const TuneEvaluateSetup& setup)
      : fs_(fs), runner_(runner), setup_(setup) {}

  Expected<TuneBatchEnd> Run(const std::vector<TuneVariant>& variants) {
    std::deque<BuildJob> in_flight;
    size_t next = 0;
    const size_t jobs = static_cast<size_t>(std::max(1, setup_.build_jobs));
    // Builds run ahead of the GPU steps, up to `jobs` at once.
    auto fill = [&]() -> Status {
      while (in_flight.size() < jobs && next < variants.size() && MayStart()) {
        auto job = StartBuild(variants[next++]);
        if (!job) return job.error();
        in_flight.push_back(std::move(*job));
      }
      return {};
    };
    if (Status s = fill(); !s) return s.error();
    while (!in_flight.empty()) {
      BuildJob job = std::move(in_flight.front());
      in_flight.pop_front();
      const TimedRun built = job.build.get();
      if (!built.result.interrupted) {
        if (Status s = fill(); !s) return s.error();  // the next builds overlap its GPU steps
      }
      const Judged judged = Judge(job, built);
      if (judged.error) return *judged.error;  // in_flight's destructors wait for their builds
      if (!judged.recorded) return TuneBatchEnd::kStopped;
    }
    if (StopSignal() != 0) return TuneBatchEnd::kStopped;
    return next < variants.size() ? TuneBatchEnd::kHalted : TuneBatchEnd::kDone;
  }

  Expected<std::optional<TuneEvaluation>> Finalist(const TuneEvaluation& benchmarked,
                                                   int* tests_passed) {
    const fs::path copy = TuneVariantDir(setup_.run_dir, benchmarked.variant.id) / "project";
    if (Status s = WriteProjectCopy(fs_, *setup_.snapshot, copy); !s) return s.error();
    TuneEvaluation e = benchmarked;
    ChildResult child;
    Judged judged;
    if (Step("test", RunChild(copy, "test", e.variant, {"--json"}), e.variant,
             TuneStage::kTestFailed, e, child, judged)) {
      e.tests = TuneTests::kFull;
      *tests_passed = TestsPassed(child.document);
    } else if (judged.error) {
      return *judged.error;
    } else if (!judged.recorded) {
      return std::optional<TuneEvaluation>();  // stopped
    } else {
      e.reason = "full tests: " + e.reason;
    }
    if (Status s = Record(e, *tests_passed, /*notify=*/false); !s) return s.error();
    return std::optional<TuneEvaluation>(e);
  }

 private:
  bool MayStart() const { return StopSignal() == 0 && (!setup_.may_start || setup_.may_start()); }

  Expected<BuildJob> StartBuild(const TuneVariant& variant) {
    BuildJob job{variant, TuneVariantDir(setup_.run_dir, variant.id) / "project", {}};
    if (Status s = WriteProjectCopy(fs_, *setup_.snapshot, job.copy); !s) return s.error();
    auto argv = TuneChildArgv(setup_.kbuild_exe, job.copy, "build", variant, {"-j1", "--json"});
    ProcessRunner& runner = runner_;
    job.build = std::async(std::launch::async,
                           [&runner, argv = std::move(argv)] { return RunTimed(runner, argv); });
    return job;
  }

  Status Record(TuneEvaluation& e, int tests_passed, bool notify = true) {
    e.reason = e.stage == TuneStage::kDone ? "" : e.reason;
    if (Status s = AppendHistory(fs_, setup_.run_dir / kTuneHistoryFile, e); !s) return s;
    if (notify && setup_.on_recorded) setup_.on_recorded(e, tests_passed);
    return {};
  }

  // The tests before the benchmark: the full suite, the test-filter subset,
  // or none (the benchmark's value checks stand in). False when the variant
  // ends here.
  bool Tests(const BuildJob& job, TuneEvaluation& e, ChildResult& child, Judged& judged,
             int* tests_passed) {
    if (!setup_.full_tests && setup_.test_filter.empty()) return true;
    std::vector<std::string> extra = {"--json"};
    if (!setup_.full_tests) extra.insert(extra.end(), {"--filter", setup_.test_filter});
    if (!Step("test", RunChild(job.copy, "test", job.variant, extra), job.variant,
              TuneStage::kTestFailed, e, child, judged)) {
      return false;
    }
    e.tests = setup_.full_tests ? TuneTests::kFull : TuneTests::kFiltered;
    *tests_passed = TestsPassed(child.document);
    return true;
  }

  void KeepDocument(const TuneVariant& variant, const std::string& step,
                    const nlohmann::json& document) {
    if (document.is_null()) return;
    // The child's own account; losing it loses no result, so a failed write is not fatal.
    (void)fs_.Write(TuneVariantDir(setup_.run_dir, variant.id) / (step + ".json"),
                    JsonText(document) + "\n");
  }

  // Runs one child step; fills `e` and returns false when the variant ends here.
  bool Step(const std::string& step, const TimedRun& run, const TuneVariant& variant,
            TuneStage failed_stage, TuneEvaluation& e, ChildResult& child, Judged& judged) {
    child = ReadChildResult(run.result, step);
    KeepDocument(variant, step, child.document);
    if (child.outcome == ChildOutcome::kStopped || StopSignal() != 0) return false;
    if (child.outcome == ChildOutcome::kEnvironment) {
      judged.error = EnvironmentError(variant, step, child.reason);
      return false;
    }
    if (child.outcome == ChildOutcome::kOk) return true;
    e.stage = failed_stage;
    e.reason = child.reason;
    judged.recorded = true;
    return false;
  }

  TimedRun RunChild(const fs::path& copy, const std::string& command, const TuneVariant& variant,
                    std::vector<std::string> extra) {
    return RunTimed(runner_, TuneChildArgv(setup_.kbuild_exe, copy, command, variant, extra));
  }

  Judged Judge(const BuildJob& job, const TimedRun& built) {
    Judged judged;
    TuneEvaluation e;
    e.variant = job.variant;
    ChildResult child;
    const bool built_ok =
        Step("build", built, job.variant, TuneStage::kBuildFailed, e, child, judged);
    e.build_seconds = NumberOr(child.document, "seconds", built.seconds);
    int tests_passed = 0;
    if (built_ok) {
      e.spill_bytes = SpillBytes(job.copy);
      if (e.spill_bytes > setup_.max_spill_bytes) {
        e.stage = TuneStage::kSpills;
        e.reason = "spills " + std::to_string(e.spill_bytes) + " bytes";
        judged.recorded = true;
      } else if (Tests(job, e, child, judged, &tests_passed)) {
        std::vector<std::string> bench = {"--no-peers", "--json"};
        if (!setup_.filter.empty()) bench.insert(bench.end(), {"--filter", setup_.filter});
        if (Step("bench", RunChild(job.copy, "bench", job.variant, bench), job.variant,
                 TuneStage::kBenchFailed, e, child, judged)) {
          e.stage = TuneStage::kDone;
          e.cases = PerformanceCases(child.document);
          judged.recorded = true;
        }
      }
    }
    if (!judged.recorded || judged.error) return judged;
    if (Status s = Record(e, tests_passed); !s) judged.error = s.error();
    return judged;
  }

  // ptxas's spill report in the build log of the `kbuild build` that just ran (kbuild test and
  // bench replace the log with their own build's).
  int SpillBytes(const fs::path& copy) const {
    const fs::path log = MakeBuildPaths(copy).build_log;
    if (fs_.KindOf(log) != FileKind::kRegular) return 0;
    auto text = fs_.ReadAtMost(log, kMaxResultsBytes);
    return text ? SpillBytesInLog(*text) : 0;
  }

  FileSystem& fs_;
  ProcessRunner& runner_;
  const TuneEvaluateSetup& setup_;
};

}  // namespace

Expected<std::optional<TuneEvaluation>> TestFinalist(FileSystem& fs, ProcessRunner& runner,
                                                     const TuneEvaluateSetup& setup,
                                                     const TuneEvaluation& benchmarked,
                                                     int* tests_passed) {
  return Evaluator(fs, runner, setup).Finalist(benchmarked, tests_passed);
}

fs::path TuneVariantDir(const fs::path& run_dir, const std::string& id) {
  return run_dir / "variants" / id;
}

Expected<TuneBatchEnd> EvaluateVariants(FileSystem& fs, ProcessRunner& runner,
                                        const TuneEvaluateSetup& setup,
                                        const std::vector<TuneVariant>& variants) {
  return Evaluator(fs, runner, setup).Run(variants);
}

}  // namespace kb
