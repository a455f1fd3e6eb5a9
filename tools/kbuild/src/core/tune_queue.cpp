#include "core/tune_queue.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/json_fields.h"
#include "core/macro_defines.h"
#include "core/run_folder.h"
#include "core/stop_signal.h"
#include "core/tune_results.h"
#include "core/tune_runner.h"
#include "core/tune_space.h"

namespace kb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kMaxFilterLength = 4096;

constexpr const char* StepWord(TuneWorkStep step) {
  return step == TuneWorkStep::kBenchmark ? "benchmark" : "full-tests";
}

// The payload's evaluation settings, each checked; the first problem wins.
class SettingsReader {
 public:
  explicit SettingsReader(const json& payload) : payload_(payload) {}
  std::string problem;

  bool Bool(const char* key) {
    const auto it = payload_.find(key);
    if (it != payload_.end() && it->is_boolean()) return it->get<bool>();
    Fail(std::string(key) + " is not true or false");
    return false;
  }
  std::string Filter(const char* key) {
    const auto it = payload_.find(key);
    if (it == payload_.end() || !it->is_string()) {
      Fail(std::string(key) + " is not a string");
      return "";
    }
    if (it->get_ref<const std::string&>().size() > kMaxFilterLength) {
      Fail(std::string(key) + " is too long");
    }
    return it->get<std::string>();
  }
  int Count(const char* key) {
    const double value = NumberOr(payload_, key, -1);
    if (value >= 0 && value <= INT_MAX && std::floor(value) == value) {
      return static_cast<int>(value);
    }
    Fail(std::string(key) + " is not a whole number >= 0");
    return 0;
  }
  void Fail(const std::string& why) {
    if (problem.empty()) problem = why;
  }

 private:
  const json& payload_;
};

}  // namespace

std::string TuneWorkId(const std::string& variant_id, TuneWorkStep step) {
  return step == TuneWorkStep::kBenchmark ? variant_id : variant_id + "-full";
}

json TuneWorkPayload(const TuneVariant& variant, TuneWorkStep step,
                     const TuneEvaluateSetup& setup) {
  const json defines = DefineArgs(variant.values);
  return {{"kind", kTuneWorkKind},
          {"step", StepWord(step)},
          {"id", variant.id},
          {"defines", defines},
          {"full_tests", setup.full_tests},
          {"test_filter", setup.test_filter},
          {"build_tests", setup.build_tests},
          {"bench_filter", setup.filter},
          {"max_spill_bytes", setup.max_spill_bytes}};
}

std::optional<TuneWork> TuneWorkFromPayload(const json& payload, const std::string& queue_id,
                                            std::string* problem) {
  TuneWork work;
  const std::string step = StringOr(payload, "step");
  if (step != StepWord(TuneWorkStep::kBenchmark) && step != StepWord(TuneWorkStep::kFullTests)) {
    *problem = "unknown step '" + step + "'";
    return std::nullopt;
  }
  work.step = step == StepWord(TuneWorkStep::kBenchmark) ? TuneWorkStep::kBenchmark
                                                         : TuneWorkStep::kFullTests;
  std::vector<std::string> args;
  for (const json& define : ArrayAt(payload, "defines")) {
    if (!define.is_string()) {
      *problem = "a define is not a string";
      return std::nullopt;
    }
    args.push_back(define.get<std::string>());
  }
  auto defines = ParseMacroDefines(args);
  if (!defines) {
    *problem = "defines: " + defines.error().message;
    return std::nullopt;
  }
  work.variant.values = std::move(*defines);
  work.variant.id = StringOr(payload, "id");
  // The id names the variant's folder in the run: it must be the one its values give.
  const std::string expected =
      work.variant.values.empty() ? kTuneDefaultsId : VariantId(work.variant);
  if (work.variant.id != expected) {
    *problem =
        "the variant's id '" + work.variant.id + "' is not its defines' ('" + expected + "')";
    return std::nullopt;
  }
  if (TuneWorkId(work.variant.id, work.step) != queue_id) {
    *problem = "the variant's id '" + work.variant.id + "' is not the queue id";
    return std::nullopt;
  }
  SettingsReader read(payload);
  work.settings.full_tests = read.Bool("full_tests");
  work.settings.build_tests = read.Bool("build_tests");
  work.settings.test_filter = read.Filter("test_filter");
  work.settings.filter = read.Filter("bench_filter");
  work.settings.max_spill_bytes = read.Count("max_spill_bytes");
  if (!read.problem.empty()) {
    *problem = read.problem;
    return std::nullopt;
  }
  return work;
}

TuneEvaluation EvaluationFromDoneRecord(const json& record, const TuneVariant& variant,
                                        int* tests_passed) {
  std::string problem = "the record holds neither an evaluation nor verdict \"lost\"";
  std::optional<TuneEvaluation> worker;
  const bool lost = StringOr(record, "verdict") == "lost";
  if (!lost && record.contains("evaluation")) {
    worker = ParseHistoryLine(
        record["evaluation"].dump(-1, ' ', false, json::error_handler_t::replace), &problem);
    if (worker && worker->variant.id != variant.id) {
      problem = "its evaluation is of '" + worker->variant.id + "'";
      worker.reset();
    }
  }
  *tests_passed = 0;
  TuneEvaluation e;
  if (worker) {
    e = std::move(*worker);
    *tests_passed =
        static_cast<int>(std::clamp<double>(NumberOr(record, "tests_passed"), 0, INT_MAX));
  }
  e.variant = variant;
  if (!worker) {
    e.stage = TuneStage::kLost;
    e.reason =
        lost ? StringOr(record, "reason", "lost in the queue")
             : "unreadable result from worker '" + StringOr(record, "worker") + "': " + problem;
  }
  return e;
}

QueuedTuneEvaluator::QueuedTuneEvaluator(FileSystem& fs, fs::path queue_dir, size_t jobs,
                                         QueueTimings timings, QueueClock clock)
    : fs_(fs), client_(fs, std::move(queue_dir), timings, std::move(clock)), jobs_(jobs) {}

std::string QueuedTuneEvaluator::AtOnceText() const {
  return fmt::format("{} in the queue at a time", jobs_);
}

Expected<TuneBatchEnd> QueuedTuneEvaluator::Variants(const TuneEvaluateSetup& setup,
                                                     const std::vector<TuneVariant>& variants) {
  std::vector<const TuneVariant*> out;  // queued, not recorded yet
  size_t next = 0;
  auto may_start = [&] { return StopSignal() == 0 && (!setup.may_start || setup.may_start()); };
  auto fill = [&]() -> Status {
    while (out.size() < std::max<size_t>(jobs_, 1) && next < variants.size() && may_start()) {
      const TuneVariant& v = variants[next++];
      const std::string id = TuneWorkId(v.id, TuneWorkStep::kBenchmark);
      if (Status s = client_.Submit(id, TuneWorkPayload(v, TuneWorkStep::kBenchmark, setup)); !s) {
        return s;
      }
      out.push_back(&v);
    }
    return {};
  };
  if (Status s = fill(); !s) return s.error();
  while (!out.empty()) {
    std::vector<std::string> ids;
    for (const TuneVariant* v : out) ids.push_back(TuneWorkId(v->id, TuneWorkStep::kBenchmark));
    auto done = client_.WaitForAny(ids);
    if (!done) return done.error();
    if (!*done) return TuneBatchEnd::kStopped;
    const auto it = std::find_if(out.begin(), out.end(),
                                 [&](const TuneVariant* v) { return v->id == (*done)->id; });
    int tests_passed = 0;
    TuneEvaluation e = EvaluationFromDoneRecord((*done)->record, **it, &tests_passed);
    out.erase(it);
    if (Status s = RecordEvaluation(fs_, setup, e, tests_passed, /*notify=*/true); !s) {
      return s.error();
    }
    if (Status s = fill(); !s) return s.error();
  }
  if (StopSignal() != 0) return TuneBatchEnd::kStopped;
  return next < variants.size() ? TuneBatchEnd::kHalted : TuneBatchEnd::kDone;
}

Expected<std::optional<TuneEvaluation>> QueuedTuneEvaluator::Finalist(
    const TuneEvaluateSetup& setup, const TuneEvaluation& benchmarked, int* tests_passed) {
  const std::string id = TuneWorkId(benchmarked.variant.id, TuneWorkStep::kFullTests);
  TuneEvaluateSetup full = setup;
  full.full_tests = true;
  if (Status s =
          client_.Submit(id, TuneWorkPayload(benchmarked.variant, TuneWorkStep::kFullTests, full));
      !s) {
    return s.error();
  }
  auto done = client_.WaitForAny({id});
  if (!done) return done.error();
  if (!*done) return std::optional<TuneEvaluation>();
  const TuneEvaluation tested =
      EvaluationFromDoneRecord((*done)->record, benchmarked.variant, tests_passed);
  TuneEvaluation e = benchmarked;
  e.stage = tested.stage;
  e.reason = tested.reason;
  e.tests = tested.tests;
  if (Status s = RecordEvaluation(fs_, setup, e, *tests_passed, /*notify=*/false); !s) {
    return s.error();
  }
  return std::optional<TuneEvaluation>(e);
}

namespace {

// One stage of a claimed tune item on a worker (TuneWorkReader).
class TuneWorkStage {
 public:
  TuneWorkStage(FileSystem& fs, ProcessRunner& runner, const TuneWorkerSetup& setup,
                const TuneWork& work, const ClaimedWork& claimed, WorkStage stage)
      : fs_(fs), runner_(runner), setup_(setup), work_(work), claimed_(claimed), stage_(stage) {
    s_ = work.settings;
    s_.run_dir = setup.run_dir;
    s_.copy_dir = stage == WorkStage::kWhole ? setup.copy_dir : setup.staged.CopyOf(claimed.id);
    s_.record_history = false;
    s_.kbuild_exe = setup.kbuild_exe;
    s_.snapshot = setup.snapshot;
    s_.build_jobs = 1;
  }

  Expected<std::optional<WorkResult>> Run() {
    if (stage_ == WorkStage::kBuild) return Build();
    if (stage_ == WorkStage::kGpu) {
      auto lost = FetchOrLose(fs_, setup_.staged, claimed_);
      if (!lost) return lost.error();
      if (*lost) return lost;
    }
    std::optional<TuneEvaluation> evaluation;
    int tests_passed = 0;
    if (work_.step == TuneWorkStep::kFullTests) {
      TuneEvaluation benchmarked;
      benchmarked.variant = work_.variant;
      benchmarked.stage = TuneStage::kDone;
      auto tested = TestFinalist(fs_, runner_, s_, benchmarked, &tests_passed);
      if (!tested) return tested.error();
      evaluation = *tested;
    } else if (stage_ == WorkStage::kGpu) {
      TuneEvaluation built;
      built.variant = work_.variant;
      built.build_seconds = NumberOr(claimed_.built, "build_seconds");
      built.spill_bytes = IntegerOr(claimed_.built, "spill_bytes");
      auto ran = RunBuiltVariant(fs_, runner_, s_, built, &tests_passed);
      if (!ran) return ran.error();
      evaluation = *ran;
    } else {
      s_.on_recorded = [&](const TuneEvaluation& e, int passed) {
        evaluation = e;
        tests_passed = passed;
      };
      auto end = EvaluateVariants(fs_, runner_, s_, {work_.variant});
      if (!end) return end.error();
    }
    if (stage_ == WorkStage::kGpu) (void)fs_.Remove(s_.copy_dir.parent_path());
    if (!evaluation) return std::optional<WorkResult>();  // Ctrl-C
    return Result(*evaluation, tests_passed);
  }

 private:
  Expected<std::optional<WorkResult>> Build() {
    auto built = BuildVariantStage(fs_, runner_, s_, work_.variant);
    if (!built) return built.error();
    if (!*built) return std::optional<WorkResult>();  // Ctrl-C
    if (!(*built)->built) return Result((*built)->evaluation, 0);
    auto result = BuiltWorkResult(fs_, setup_.staged, claimed_.id,
                                  {{"build_seconds", (*built)->evaluation.build_seconds},
                                   {"spill_bytes", (*built)->evaluation.spill_bytes}});
    if (!result) return result.error();
    return std::optional<WorkResult>(*result);
  }

  static std::optional<WorkResult> Result(const TuneEvaluation& e, int tests_passed) {
    return WorkResult{{{"evaluation", json::parse(HistoryLine(e))}, {"tests_passed", tests_passed}},
                      TuneStageWord(e.stage)};
  }

  FileSystem& fs_;
  ProcessRunner& runner_;
  const TuneWorkerSetup& setup_;
  const TuneWork& work_;
  const ClaimedWork& claimed_;
  WorkStage stage_;
  TuneEvaluateSetup s_;
};

}  // namespace

WorkReader TuneWorkReader(FileSystem& fs, ProcessRunner& runner, TuneWorkerSetup setup) {
  return [&fs, &runner, setup](const ClaimedWork& claimed, WorkStage stage,
                               std::string* problem) -> std::optional<PreparedWork> {
    std::optional<TuneWork> work = TuneWorkFromPayload(claimed.payload, claimed.id, problem);
    if (!work) return std::nullopt;
    *problem = RunSubfolderProblem(fs, setup.run_dir, fs::path("variants") / work->variant.id);
    if (!problem->empty()) return std::nullopt;
    return PreparedWork([&fs, &runner, setup, stage, claimed,
                         work = std::move(*work)]() -> Expected<std::optional<WorkResult>> {
      return TuneWorkStage(fs, runner, setup, work, claimed, stage).Run();
    });
  };
}

}  // namespace kb
