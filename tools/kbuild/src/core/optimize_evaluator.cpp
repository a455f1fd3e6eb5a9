#include "core/optimize_evaluator.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <future>
#include <sstream>

#include "core/json_fields.h"
#include "core/message_text.h"
#include "core/paths.h"
#include "core/profile_markdown.h"
#include "core/report.h"
#include "core/stop_signal.h"
#include "core/tune_child.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

// Words of the harness's problems (tools/harness) that mean a rule, not a wrong value;
// the snake_case ones are the fail kinds kbuild test's summary names ("first: <case>: <kind>").
constexpr std::array<const char*, 8> kRuleMarkers = {
    "physically impossible", "unwritten",      "input changed", "inputs changed",
    "side stream",           "input_modified", "late_write",    "out_of_bounds_write"};
constexpr std::array<const char*, 5> kCrashMarkers = {"CUDA error", "cuda_error",
                                                      "illegal memory access",
                                                      "unspecified launch failure", "Segmentation"};

struct Step {
  ProcessResult result;
  ChildResult child;
  double seconds = 0;
};

bool Contains(const std::string& text, const char* word) {
  return text.find(word) != std::string::npos;
}

// The first non-empty line of the error's source excerpt ("  12 | x = y;").
std::string ErrorSource(const nlohmann::json& document) {
  std::istringstream lines(StringOr(ObjectAt(document, "error"), "detail"));
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t") != std::string::npos) return OneLine(line);
  }
  return "";
}

}  // namespace

fs::path WorkerCopyDir(const fs::path& run_dir, int worker) {
  return run_dir / "workers" / std::to_string(worker) / "project";
}

AttemptVerdict FailedRunVerdict(const ProcessResult& result, const std::string& reason) {
  if (result.timed_out) return AttemptVerdict::kTimedOut;
  if (result.exit_code >= 128) return AttemptVerdict::kCrashed;  // killed by a signal
  for (const char* marker : kCrashMarkers) {
    if (Contains(reason, marker)) return AttemptVerdict::kCrashed;
  }
  for (const char* marker : kRuleMarkers) {
    if (Contains(reason, marker)) return AttemptVerdict::kRuleBroken;
  }
  return AttemptVerdict::kTestFailed;
}

Expected<fs::path> ChildKbuildEvaluator::PrepareCopy(const Candidate& candidate,
                                                     const EvaluationSlot& slot) {
  const fs::path copy = slot.copy.empty() ? WorkerCopyDir(setup_.run_dir, slot.worker) : slot.copy;
  if (Status s = WriteProjectCopy(fs_, *setup_.snapshot, copy); !s) return s.error();
  for (const auto& file : candidate.files) {
    if (const std::string why = OutsideFolderReason(file.relative); !why.empty()) {
      return MakeError(ExitCode::kInternal,
                       "candidate file " + file.relative.string() + ": " + why);
    }
    if (Status s = WriteIfChanged(fs_, copy / file.relative, file.content); !s) return s.error();
  }
  if (Status s = fs_.MakeDirectories(slot.attempt_dir / "logs"); !s) return s.error();
  return copy;
}

Expected<std::optional<std::string>> ChildKbuildEvaluator::Profile(const Candidate& candidate,
                                                                   const std::string& case_name,
                                                                   const EvaluationSlot& slot) {
  auto copy = PrepareCopy(candidate, slot);
  if (!copy) return copy.error();
  RunOptions options;
  options.timeout_seconds = setup_.profile_timeout_seconds;
  if (slot.gpu) options.env["CUDA_VISIBLE_DEVICES"] = *slot.gpu;
  const fs::path log = slot.attempt_dir / "logs" / "profile.log";
  options.log = log;
  const TuneVariant variant{candidate.defines, candidate.id};
  const ProcessResult result = runner_.Run(
      TuneChildArgv(setup_.kbuild_exe, *copy, "profile", variant, {"--json", "--case", case_name}),
      options);
  const ChildResult child = ReadChildResult(result, "profile");
  if (child.outcome == ChildOutcome::kStopped || StopSignal() != 0) {
    return std::optional<std::string>();
  }
  if (!child.document.is_null()) {
    (void)fs_.Write(slot.attempt_dir / "profile.json", JsonText(child.document) + "\n");
  }
  if (child.outcome != ChildOutcome::kOk) {
    return std::optional<std::string>("Not profiled (kbuild profile --case '" + OneLine(case_name) +
                                      "'): " + OneLine(child.reason) +
                                      "; its log: " + log.string() + "\n");
  }
  return std::optional<std::string>(
      ProfileMarkdown(child.document, candidate.id + " on '" + case_name + "'"));
}

Expected<std::optional<Attempt>> ChildKbuildEvaluator::EvaluateStages(const Candidate& candidate,
                                                                      const EvaluationSlot& slot,
                                                                      CandidateStages stages) {
  fs::path copy = slot.copy;
  if (stages == CandidateStages::kGpu) {
    if (Status s = fs_.MakeDirectories(slot.attempt_dir / "logs"); !s) return s.error();
  } else {
    auto prepared = PrepareCopy(candidate, slot);
    if (!prepared) return prepared.error();
    copy = *prepared;
  }
  TuneVariant variant;
  variant.id = candidate.id;
  variant.values = candidate.defines;

  // `name` (default: the command) names its log and document.
  auto run = [&](const std::string& command, std::vector<std::string> extra, double timeout,
                 std::string name = "") {
    if (name.empty()) name = command;
    RunOptions options;
    options.timeout_seconds = timeout;
    if (slot.gpu) options.env["CUDA_VISIBLE_DEVICES"] = *slot.gpu;
    options.log = slot.attempt_dir / "logs" / (name + ".log");
    const auto start = std::chrono::steady_clock::now();
    Step step;
    step.result =
        runner_.Run(TuneChildArgv(setup_.kbuild_exe, copy, command, variant, extra), options);
    step.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    step.child = ReadChildResult(step.result, command);
    if (!step.child.document.is_null()) {
      // The child's own account; losing it loses no result.
      (void)fs_.Write(slot.attempt_dir / (name + ".json"), JsonText(step.child.document) + "\n");
    }
    return step;
  };
  // Ends the attempt at a failed step: nothing (stopped), an error (exit 4) or the verdict.
  auto ended = [&](const Step& step, const std::string& command,
                   Attempt& a) -> std::optional<Expected<std::optional<Attempt>>> {
    if (step.child.outcome == ChildOutcome::kOk && StopSignal() == 0) return std::nullopt;
    if (step.child.outcome == ChildOutcome::kStopped || StopSignal() != 0) {
      return Expected<std::optional<Attempt>>(std::optional<Attempt>());
    }
    if (std::string why = WorkerFailureReason(step.result, step.child, command); !why.empty()) {
      a.verdict = AttemptVerdict::kLost;
      a.first_error = why;
      a.worker_failure = std::move(why);
      return Expected<std::optional<Attempt>>(std::optional<Attempt>(a));
    }
    if (step.child.outcome == ChildOutcome::kEnvironment) {
      return Expected<std::optional<Attempt>>(MakeError(
          ExitCode::kEnvironment,
          "kbuild " + command + " of " + candidate.id + " cannot run here: " + step.child.reason,
          "kbuild optimize needs what kbuild " + command +
              " needs (a GPU for tests and benchmarks); kbuild doctor says what is missing"));
    }
    a.first_error = step.child.reason;
    if (command == "build" || command == "test-build" || command == "bench-build") {
      a.verdict = step.result.timed_out ? AttemptVerdict::kTimedOut : AttemptVerdict::kCompileError;
      a.error_source = ErrorSource(step.child.document);
    } else {
      a.verdict = FailedRunVerdict(step.result, step.child.reason);
    }
    return Expected<std::optional<Attempt>>(std::optional<Attempt>(a));
  };

  Attempt a;
  a.candidate = candidate;
  if (stages != CandidateStages::kGpu) {
    const Step built = run("build", {"-j1", "--json"}, setup_.build_timeout_seconds);
    a.build_seconds = NumberOr(built.child.document, "seconds", built.seconds);
    if (auto end = ended(built, "build", a)) return std::move(*end);
  }
  if (stages == CandidateStages::kBuild) {
    // The binaries the GPU stage runs, so it finds them up to date. Logged and kept under
    // their own names; a failure here is the candidate's compile error too.
    for (const char* command : {"test", "bench"}) {
      const std::string name = std::string(command) + "-build";
      const Step built =
          run(command, {"--build-only", "-j1", "--json"}, setup_.build_timeout_seconds, name);
      a.build_seconds += NumberOr(built.child.document, "seconds", built.seconds);
      if (auto end = ended(built, name, a)) return std::move(*end);
    }
    a.verdict = AttemptVerdict::kOk;
    return std::optional<Attempt>(a);
  }
  const Step tested = run("test", {"--json"}, setup_.test_timeout_seconds);
  a.test_seconds = tested.seconds;
  a.tests_passed = TestsPassed(tested.child.document);
  if (auto end = ended(tested, "test", a)) return std::move(*end);
  std::vector<std::string> bench = {"--no-baselines", "--json"};
  if (!setup_.bench_filter.empty()) bench.insert(bench.end(), {"--filter", setup_.bench_filter});
  const Step benched = run("bench", bench, setup_.bench_timeout_seconds);
  a.bench_seconds = benched.seconds;
  if (auto end = ended(benched, "bench", a)) return std::move(*end);
  a.verdict = AttemptVerdict::kOk;
  a.cases = PerformanceCases(benched.child.document);
  return std::optional<Attempt>(a);
}

int CountGpus(ProcessRunner& runner) {
  RunOptions options;
  options.timeout_seconds = 30;
  const ProcessResult r = runner.Run({"nvidia-smi", "-L"}, options);
  if (r.exit_code != 0 || r.timed_out || r.not_found) return 0;
  int gpus = 0;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) gpus += line.rfind("GPU ", 0) == 0 ? 1 : 0;
  return gpus;
}

std::vector<std::string> WorkerDevices(const std::optional<std::string>& visible, int gpus) {
  std::vector<std::string> devices;
  if (visible) {
    std::istringstream items(*visible);
    for (std::string item; std::getline(items, item, ',');) {
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      if (!item.empty()) devices.push_back(item);
    }
    return devices;
  }
  for (int i = 0; i < gpus; ++i) devices.push_back(std::to_string(i));
  return devices;
}

Expected<std::vector<std::optional<Attempt>>> EvaluateAll(
    CandidateEvaluator& evaluator, const std::vector<Candidate>& candidates,
    const std::vector<EvaluationSlot>& slots) {
  std::vector<std::future<Expected<std::optional<Attempt>>>> running;
  for (size_t i = 0; i < candidates.size(); ++i) {
    running.push_back(std::async(std::launch::async, [&evaluator, &candidates, &slots, i] {
      return evaluator.Evaluate(candidates[i], slots.at(i));
    }));
  }
  std::vector<std::optional<Attempt>> out;
  std::optional<Error> error;
  for (auto& r : running) {
    auto result = r.get();
    if (!result && !error) error = result.error();
    out.push_back(result ? *result : std::nullopt);
  }
  if (error) return *error;
  return out;
}

}  // namespace kb
