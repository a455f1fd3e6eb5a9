#include "core/optimize_workers.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/history_lines.h"
#include "core/json_fields.h"
#include "core/message_text.h"
#include "core/stop_signal.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

using Json = nlohmann::json;

std::optional<WorkerFailure> FailureFromJson(const Json& j) {
  if (!j.is_object() || !j.contains("worker") || !j.contains("reason")) return std::nullopt;
  WorkerFailure f;
  f.worker = IntegerOr(j, "worker", -1);
  f.device = StringOr(j, "device");
  f.attempt = StringOr(j, "attempt");
  f.reason = OneLine(StringOr(j, "reason"));
  if (f.worker < 0 || f.reason.empty()) return std::nullopt;
  return f;
}

// Who failed, for progress lines and errors: "worker 1 (GPU 5)".
std::string WorkerName(int worker, const std::string& device) {
  return "worker " + std::to_string(worker) + (device.empty() ? "" : " (GPU " + device + ")");
}

}  // namespace

Json WorkerFailureJson(const WorkerFailure& f) {
  return {{"worker", f.worker}, {"device", f.device}, {"attempt", f.attempt}, {"reason", f.reason}};
}

std::string WorkerFailureText(const WorkerFailure& f) {
  return WorkerName(f.worker, f.device) + " while judging " + f.attempt + ": " + f.reason;
}

std::string AfterWorkerFailureText(AfterWorkerFailure next, const std::string& attempt) {
  switch (next) {
    case AfterWorkerFailure::kJudgedAgain:
      return fmt::format("it is retired; {} is judged again on another worker (at most {} times)",
                         attempt, kMaxWorkerReruns);
    case AfterWorkerFailure::kLost:
      return fmt::format("it is retired; {} is recorded lost (its workers failed {} times)",
                         attempt, kMaxWorkerReruns + 1);
    case AfterWorkerFailure::kNoWorkerLeft:
      break;
  }
  return "no other worker is left";
}

std::string GpuBaselinesText(const std::vector<GpuBaseline>& baselines) {
  std::string text;
  double low = 0, high = 0;
  for (const auto& b : baselines) {
    text += (text.empty() ? "" : ", ") + std::string("GPU ") + b.device + " " +
            (b.vs_run > 0 ? fmt::format("{:.3f}x", b.vs_run) : "failed (" + b.problem + ")");
    if (b.vs_run <= 0) continue;
    low = low == 0 ? b.vs_run : std::min(low, b.vs_run);
    high = std::max(high, b.vs_run);
  }
  if (low > 0 && high / low - 1 > kGpuBaselineTolerance) {
    text += fmt::format("; they differ by {:.1f}%", 100 * (high / low - 1));
  }
  return text;
}

Status AppendWorkerFailure(FileSystem& fs, const fs::path& run_dir, const WorkerFailure& f) {
  return AppendHistoryLine(
      fs, run_dir / kWorkerFailuresFile,
      WorkerFailureJson(f).dump(-1, ' ', false, Json::error_handler_t::replace),
      [](std::string_view text) {
        return FailureFromJson(ParseUntrustedJson<Json>(text)).has_value();
      });
}

Expected<std::vector<WorkerFailure>> ReadWorkerFailures(const FileSystem& fs,
                                                        const fs::path& run_dir) {
  auto text = ReadHistoryText(fs, run_dir / kWorkerFailuresFile);
  if (!text) return text.error();
  std::vector<WorkerFailure> failures;
  for (const JsonLine& line : HistoryLines(*text)) {
    if (auto f = FailureFromJson(ParseUntrustedJson<Json>(line.text))) failures.push_back(*f);
  }
  return failures;
}

WorkerPool::WorkerPool(std::vector<std::string> devices) : devices_(std::move(devices)) {
  for (size_t i = 0; i < devices_.size(); ++i) live_.push_back(static_cast<int>(i));
}

EvaluationSlot WorkerPool::SlotFor(int worker, fs::path attempt_dir) const {
  EvaluationSlot slot;
  slot.worker = worker;
  slot.gpu = device(worker);
  slot.attempt_dir = std::move(attempt_dir);
  return slot;
}

void WorkerPool::Retire(int worker) {
  live_.erase(std::remove(live_.begin(), live_.end(), worker), live_.end());
}

Expected<BatchOutcome> EvaluateOnWorkers(
    CandidateEvaluator& evaluator, WorkerPool& pool, const std::vector<Candidate>& candidates,
    const std::vector<fs::path>& attempt_dirs,
    const std::function<Status(const WorkerFailure&, AfterWorkerFailure)>& on_failure) {
  BatchOutcome outcome;
  outcome.results.resize(candidates.size());
  outcome.judged_by.assign(candidates.size(), -1);
  std::vector<int> reruns(candidates.size(), 0);
  std::string last_failure;                        // "worker 1 (GPU 5): <reason>"
  std::vector<size_t> waiting(candidates.size());  // indices still to judge, in order
  for (size_t i = 0; i < waiting.size(); ++i) waiting[i] = i;
  while (!waiting.empty()) {
    if (pool.live() == 0) {
      std::string ids;
      for (size_t i : waiting) ids += (ids.empty() ? "" : ", ") + candidates[i].id;
      outcome.workers_gone = MakeError(
          ExitCode::kEnvironment,
          "every worker of this run failed; not judged: " + ids + " (last: " + last_failure + ")",
          "kbuild doctor says which GPUs work; kbuild optimize --resume <run folder> evaluates "
          "the saved candidates again");
      return outcome;
    }
    // One round: as many of the waiting candidates as there are live workers.
    const size_t round = std::min(waiting.size(), static_cast<size_t>(pool.live()));
    std::vector<Candidate> batch;
    std::vector<EvaluationSlot> slots;
    for (size_t j = 0; j < round; ++j) {
      batch.push_back(candidates[waiting[j]]);
      slots.push_back(pool.SlotFor(pool.live_workers()[j], attempt_dirs.at(waiting[j])));
    }
    auto evaluated = EvaluateAll(evaluator, batch, slots);
    if (!evaluated) return evaluated.error();
    std::vector<size_t> again;
    bool stopped = StopSignal() != 0;
    for (size_t j = 0; j < round; ++j) {
      const size_t i = waiting[j];
      std::optional<Attempt>& result = (*evaluated)[j];
      if (!result || result->worker_failure.empty()) {
        stopped = stopped || !result;
        if (result) outcome.judged_by[i] = slots[j].worker;
        outcome.results[i] = std::move(result);
        continue;
      }
      const int worker = slots[j].worker;
      last_failure = WorkerName(worker, pool.device(worker)) + ": " + result->worker_failure;
      const bool lost = ++reruns[i] > kMaxWorkerReruns;
      const AfterWorkerFailure next = lost              ? AfterWorkerFailure::kLost
                                      : pool.live() > 1 ? AfterWorkerFailure::kJudgedAgain
                                                        : AfterWorkerFailure::kNoWorkerLeft;
      if (Status s = on_failure(
              {worker, pool.device(worker), candidates[i].id, result->worker_failure}, next);
          !s) {
        return s.error();
      }
      pool.Retire(worker);
      if (lost) {
        Attempt lost = std::move(*result);
        lost.verdict = AttemptVerdict::kLost;
        lost.first_error =
            "its workers failed " + std::to_string(reruns[i]) + " times; the last: " + last_failure;
        lost.worker_failure.clear();
        outcome.results[i] = std::move(lost);
        continue;
      }
      again.push_back(i);
    }
    if (stopped) return outcome;  // Ctrl-C: the rest stay unjudged (saved for --resume)
    // The rest of this round's waiting ones, then the ones to judge again.
    std::vector<size_t> next(waiting.begin() + static_cast<std::ptrdiff_t>(round), waiting.end());
    next.insert(next.end(), again.begin(), again.end());
    std::sort(next.begin(), next.end());
    waiting = std::move(next);
  }
  return outcome;
}

}  // namespace kb
