#include "core/tune_evaluate.h"

#include <fmt/format.h>

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

// One child of a variant's build phase: `kbuild build`, then `kbuild test|bench --build-only`.
struct BuildStep {
  std::string step;      // "build", "test --build-only", "bench --build-only"
  std::string document;  // the name its JSON document is kept under: build, test-build, ...
  std::vector<std::string> argv;
  TimedRun run;
};

// What a variant's build phase did on its worker thread, in order, up to the first step that
// did not succeed; ptxas's spill report is read from `kbuild build`'s log before the harness
// builds replace that log with their own.
struct BuiltVariant {
  std::vector<BuildStep> steps;
  int spill_bytes = 0;
  bool Interrupted() const { return !steps.empty() && steps.back().run.result.interrupted; }
};

// One variant whose build runs (or ran) on a worker thread.
struct BuildJob {
  TuneVariant variant;
  fs::path copy;
  std::future<BuiltVariant> build;
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

// ptxas's spill report in the build log of the `kbuild build` that just ran in `copy`.
int SpillBytesInBuildLog(const FileSystem& fs, const fs::path& copy) {
  const fs::path log = MakeBuildPaths(copy).build_log;
  if (fs.KindOf(log) != FileKind::kRegular) return 0;
  auto text = fs.ReadAtMost(log, kMaxResultsBytes);
  return text ? SpillBytesInLog(*text) : 0;
}

// The build phase of one variant (on a worker thread): each step once the one before
// succeeded; the harness binaries only when the spills leave the variant valid.
BuiltVariant BuildVariant(FileSystem& fs, ProcessRunner& runner, const fs::path& copy,
                          std::vector<BuildStep> steps, int max_spill_bytes) {
  BuiltVariant built;
  for (BuildStep& step : steps) {
    if (!built.steps.empty() && StopSignal() != 0) break;
    step.run = RunTimed(runner, step.argv);
    built.steps.push_back(std::move(step));
    const BuildStep& done = built.steps.back();
    if (ReadChildResult(done.run.result, done.step).outcome != ChildOutcome::kOk) break;
    if (built.steps.size() == 1) {
      built.spill_bytes = SpillBytesInBuildLog(fs, copy);
      if (built.spill_bytes > max_spill_bytes) break;
    }
  }
  return built;
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
      const BuiltVariant built = job.build.get();
      if (!built.Interrupted()) {
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
    const fs::path copy = CopyOf(benchmarked.variant.id);
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
  fs::path CopyOf(const std::string& id) const {
    return setup_.copy_dir.empty() ? TuneVariantDir(setup_.run_dir, id) / "project"
                                   : setup_.copy_dir;
  }

  bool MayStart() const { return StopSignal() == 0 && (!setup_.may_start || setup_.may_start()); }

  Expected<BuildJob> StartBuild(const TuneVariant& variant) {
    BuildJob job{variant, CopyOf(variant.id), {}};
    if (Status s = WriteProjectCopy(fs_, *setup_.snapshot, job.copy); !s) return s.error();
    // The harness builds take the GPU steps' --define arguments (TuneChildArgv), so those
    // find their binaries up to date; -j and --build-only change nothing Ninja compares.
    std::vector<BuildStep> steps;
    auto add = [&](const std::string& command, const std::string& step, const std::string& document,
                   std::vector<std::string> extra) {
      steps.push_back({step,
                       document,
                       TuneChildArgv(setup_.kbuild_exe, job.copy, command, variant, extra),
                       {}});
    };
    add("build", "build", "build", {"-j1", "--json"});
    if (setup_.build_tests) {
      add("test", "test --build-only", "test-build", {"--build-only", "-j1", "--json"});
    }
    add("bench", "bench --build-only", "bench-build", {"--build-only", "-j1", "--json"});
    job.build = std::async(std::launch::async,
                           [&fs = fs_, &runner = runner_, copy = job.copy, steps = std::move(steps),
                            max = setup_.max_spill_bytes]() mutable {
                             return BuildVariant(fs, runner, copy, std::move(steps), max);
                           });
    return job;
  }

  Status Record(TuneEvaluation& e, int tests_passed, bool notify = true) {
    return RecordEvaluation(fs_, setup_, e, tests_passed, notify);
  }

  // The tests before the benchmark: the full suite, the test-filter subset,
  // or none (the benchmark's value checks stand in). False when the variant
  // ends here.
  bool Tests(const BuildJob& job, TuneEvaluation& e, ChildResult& child, Judged& judged,
             int* tests_passed) {
    if (!setup_.full_tests && setup_.test_filter.empty()) return true;
    std::vector<std::string> extra = {"--json"};
    if (!setup_.full_tests) extra.insert(extra.end(), {"--filter", setup_.test_filter});
    const TimedRun run = RunChild(job.copy, "test", job.variant, extra);
    e.test_seconds += run.seconds;
    if (!Step("test", run, job.variant, TuneStage::kTestFailed, e, child, judged)) return false;
    e.tests = setup_.full_tests ? TuneTests::kFull : TuneTests::kFiltered;
    *tests_passed = TestsPassed(child.document);
    return true;
  }

  void KeepDocument(const TuneVariant& variant, const std::string& name,
                    const nlohmann::json& document) {
    if (document.is_null()) return;
    // The child's own account; losing it loses no result, so a failed write is not fatal.
    (void)fs_.Write(TuneVariantDir(setup_.run_dir, variant.id) / (name + ".json"),
                    JsonText(document) + "\n");
  }

  // Judges one child step (its document kept as <document>.json, default <step>.json); fills
  // `e` and returns false when the variant ends here.
  bool Step(const std::string& step, const TimedRun& run, const TuneVariant& variant,
            TuneStage failed_stage, TuneEvaluation& e, ChildResult& child, Judged& judged,
            const std::string& document = "") {
    child = ReadChildResult(run.result, step);
    KeepDocument(variant, document.empty() ? step : document, child.document);
    if (child.outcome == ChildOutcome::kStopped || StopSignal() != 0) return false;
    if (const std::string why = WorkerFailureReason(run.result, child, step); !why.empty()) {
      // Not the variant's doing: the run (or this queue worker) ends, and --resume (or
      // another worker, after the lease) judges the variant again.
      judged.error = MakeError(
          ExitCode::kEnvironment, "variant " + variant.id + " was not judged: " + why,
          "not the variant's doing; kbuild doctor says whether the GPU works, and kbuild tune "
          "--resume (or another worker) judges " +
              variant.id + " again");
      return false;
    }
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

  Judged Judge(const BuildJob& job, const BuiltVariant& built) {
    Judged judged;
    TuneEvaluation e;
    e.variant = job.variant;
    ChildResult child;
    int tests_passed = 0;
    if (JudgeBuild(job, built, e, child, judged)) JudgeRun(job, e, child, judged, &tests_passed);
    if (!judged.recorded || judged.error) return judged;
    if (Status s = Record(e, tests_passed); !s) judged.error = s.error();
    return judged;
  }

  // The build phase's steps and spills; true when the variant goes on to its GPU steps.
  bool JudgeBuild(const BuildJob& job, const BuiltVariant& built, TuneEvaluation& e,
                  ChildResult& child, Judged& judged) {
    // The build time is the whole build phase: the variant's build and its harness binaries.
    bool built_ok = !built.steps.empty();
    for (const BuildStep& step : built.steps) {
      built_ok = Step(step.step, step.run, job.variant, TuneStage::kBuildFailed, e, child, judged,
                      step.document);
      e.build_seconds += NumberOr(child.document, "seconds", step.run.seconds);
      if (!built_ok) return false;
    }
    e.spill_bytes = built.spill_bytes;
    if (built_ok && e.spill_bytes > setup_.max_spill_bytes) {
      e.stage = TuneStage::kSpills;
      e.reason = "spills " + std::to_string(e.spill_bytes) + " bytes";
      judged.recorded = true;
      return false;
    }
    return built_ok;
  }

  // The tests before the benchmark and the benchmark, in the variant's built copy.
  void JudgeRun(const BuildJob& job, TuneEvaluation& e, ChildResult& child, Judged& judged,
                int* tests_passed) {
    if (!Tests(job, e, child, judged, tests_passed)) return;
    std::vector<std::string> bench = {"--no-baselines", "--json"};
    if (!setup_.filter.empty()) bench.insert(bench.end(), {"--filter", setup_.filter});
    const TimedRun run = RunChild(job.copy, "bench", job.variant, bench);
    e.bench_seconds += run.seconds;
    if (Step("bench", run, job.variant, TuneStage::kBenchFailed, e, child, judged)) {
      e.stage = TuneStage::kDone;
      e.cases = PerformanceCases(child.document);
      judged.recorded = true;
    }
  }

 public:
  // kbuild worker --role build: one variant's build phase.
  Expected<std::optional<TuneBuildStage>> BuildOnly(const TuneVariant& variant) {
    auto job = StartBuild(variant);
    if (!job) return job.error();
    const BuiltVariant built = job->build.get();
    TuneBuildStage stage;
    stage.evaluation.variant = variant;
    ChildResult child;
    Judged judged;
    stage.built = JudgeBuild(*job, built, stage.evaluation, child, judged);
    if (judged.error) return *judged.error;
    if (!stage.built && !judged.recorded) return std::optional<TuneBuildStage>();  // stopped
    if (!stage.built) {
      if (Status s = Record(stage.evaluation, 0); !s) return s.error();
    }
    return std::optional<TuneBuildStage>(stage);
  }

  // kbuild worker --role gpu: the GPU steps of a variant BuildOnly built, in its copy as built.
  Expected<std::optional<TuneEvaluation>> RunBuilt(const TuneEvaluation& built, int* tests_passed) {
    BuildJob job{built.variant, CopyOf(built.variant.id), {}};
    TuneEvaluation e = built;
    ChildResult child;
    Judged judged;
    JudgeRun(job, e, child, judged, tests_passed);
    if (judged.error) return *judged.error;
    if (!judged.recorded) return std::optional<TuneEvaluation>();  // stopped
    if (Status s = Record(e, *tests_passed); !s) return s.error();
    return std::optional<TuneEvaluation>(e);
  }

 private:
  FileSystem& fs_;
  ProcessRunner& runner_;
  const TuneEvaluateSetup& setup_;
};

}  // namespace

Status RecordEvaluation(FileSystem& fs, const TuneEvaluateSetup& setup, TuneEvaluation& e,
                        int tests_passed, bool notify) {
  e.reason = e.stage == TuneStage::kDone ? "" : e.reason;
  if (setup.record_history) {
    if (Status s = AppendHistory(fs, setup.run_dir / kTuneHistoryFile, e); !s) return s;
  }
  if (notify && setup.on_recorded) setup.on_recorded(e, tests_passed);
  return {};
}

std::string LocalTuneEvaluator::AtOnceText() const {
  return fmt::format("{} build{} at a time", build_jobs_, build_jobs_ == 1 ? "" : "s");
}

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

Expected<std::optional<TuneBuildStage>> BuildVariantStage(FileSystem& fs, ProcessRunner& runner,
                                                          const TuneEvaluateSetup& setup,
                                                          const TuneVariant& variant) {
  return Evaluator(fs, runner, setup).BuildOnly(variant);
}

Expected<std::optional<TuneEvaluation>> RunBuiltVariant(FileSystem& fs, ProcessRunner& runner,
                                                        const TuneEvaluateSetup& setup,
                                                        const TuneEvaluation& built,
                                                        int* tests_passed) {
  return Evaluator(fs, runner, setup).RunBuilt(built, tests_passed);
}

}  // namespace kb
