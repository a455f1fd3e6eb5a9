#include "core/queue_evaluator.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "core/json_fields.h"
#include "core/optimize_history.h"
#include "core/periodic_thread.h"
#include "core/stop_signal.h"

namespace kb {

namespace fs = std::filesystem;
using nlohmann::json;

json CandidatePayload(const Candidate& candidate) {
  Attempt planned;
  planned.candidate = candidate;
  json payload = AttemptJson(planned);
  json contents = json::array();
  for (const auto& f : candidate.files) contents.push_back(f.content);
  payload["contents"] = contents;
  return payload;
}

std::optional<Candidate> CandidateFromPayload(const json& payload, std::string* problem) {
  std::optional<Attempt> planned = AttemptFromJson(payload, problem);
  if (!planned) return std::nullopt;
  Candidate c = std::move(planned->candidate);
  const json contents = ArrayAt(payload, "contents");
  if (contents.size() != c.files.size()) {
    *problem = fmt::format("{} files but {} contents", c.files.size(), contents.size());
    return std::nullopt;
  }
  for (size_t i = 0; i < c.files.size(); ++i) {
    if (!contents[i].is_string()) {
      *problem = "the content of " + c.files[i].relative.generic_string() + " is not a string";
      return std::nullopt;
    }
    c.files[i].content = contents[i].get<std::string>();
  }
  return c;
}

QueueClock RealQueueClock() {
  return {
      [] {
        return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
      },
      [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }};
}

Attempt AttemptFromDoneRecord(const json& record, const Candidate& candidate) {
  std::string problem = "the record holds neither an attempt nor verdict \"lost\"";
  std::optional<Attempt> worker;
  if (StringOr(record, "verdict") != "lost" && record.contains("attempt")) {
    worker = AttemptFromJson(record["attempt"], &problem);
  }
  Attempt a;
  if (worker) a = std::move(*worker);
  a.candidate = candidate;
  if (!worker) {
    a.verdict = AttemptVerdict::kLost;
    a.first_error =
        StringOr(record, "verdict") == "lost"
            ? StringOr(record, "reason", "lost in the queue")
            : "unreadable result from worker '" + StringOr(record, "worker") + "': " + problem;
  }
  return a;
}

QueueEvaluator::QueueEvaluator(FileSystem& fs, fs::path queue_dir, QueueTimings timings,
                               QueueClock clock)
    : queue_(fs, std::move(queue_dir)), timings_(timings), clock_(std::move(clock)) {}

Expected<std::optional<Attempt>> QueueEvaluator::Evaluate(const Candidate& candidate,
                                                          const EvaluationSlot&) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto done = queue_.DoneRecordOf(candidate.id);
    if (!done) return done.error();
    // A resumed run finds an attempt in the queue already: it waits for it, never twice.
    auto queued = queue_.IsQueued(candidate.id);
    if (!queued) return queued.error();
    if (!*done && !*queued) {
      if (Status s = queue_.Enqueue(
              candidate.id, {{"kind", "evaluate"}, {"candidate", CandidatePayload(candidate)}});
          !s) {
        return s.error();
      }
    }
  }
  for (;;) {
    if (StopSignal() != 0) return std::optional<Attempt>();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto reclaimed = queue_.Reclaim(clock_.now(), timings_.lease_seconds, timings_.max_retries);
      if (!reclaimed) return reclaimed.error();
      auto done = queue_.DoneRecordOf(candidate.id);
      if (!done) return done.error();
      if (*done) return std::optional<Attempt>(AttemptFromDoneRecord(**done, candidate));
    }
    clock_.sleep(timings_.poll_seconds);
  }
}

Expected<std::optional<std::string>> QueueEvaluator::Profile(const Candidate&,
                                                             const std::string& case_name,
                                                             const EvaluationSlot&) {
  return std::optional<std::string>("Not profiled (kbuild profile --case '" + case_name +
                                    "'): queue workers do not profile yet\n");
}

Expected<QueueCounts> QueueEvaluator::Counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.Counts();
}

namespace {

// The worker's heartbeat, naming the attempt it holds, every `seconds` from its own thread
// while an evaluation runs, so a long one keeps its claim. Its own WorkQueue: the worker's
// thread uses the other.
class HeartbeatThread {
 public:
  HeartbeatThread(FileSystem& fs, const fs::path& queue_dir, const std::string& worker,
                  const std::string& id, double seconds, const QueueClock& clock)
      : queue_(fs, queue_dir),
        beats_(seconds, PeriodicThread::First::kAtStart,
               [this, worker, id, now = clock.now] { (void)queue_.Heartbeat(worker, id, now()); }) {
  }

 private:
  WorkQueue queue_;
  PeriodicThread beats_;
};

void Say(const QueueWorkerOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

}  // namespace

Expected<QueueWorkerSummary> RunQueueWorker(FileSystem& fs, const fs::path& queue_dir,
                                            CandidateEvaluator& evaluator,
                                            const QueueWorkerOptions& options, QueueClock clock) {
  if (Status ok = CheckQueueName(options.name, "worker"); !ok) return ok.error();
  WorkQueue queue(fs, queue_dir);
  QueueWorkerSummary summary;
  double idle_since = clock.now();
  double last_beat = -1e300;
  size_t reported_skips = 0;
  for (;;) {
    for (; reported_skips < queue.skipped().size(); ++reported_skips) {
      Say(options, "skipped " + queue.skipped()[reported_skips].Located());
    }
    if (StopSignal() != 0) {
      summary.why_ended = "stopped by a signal";
      break;
    }
    if (queue.StopRequested()) {
      summary.why_ended = "stop requested (" + (queue_dir / "stop").string() + ")";
      break;
    }
    if (clock.now() - last_beat >= options.heartbeat_seconds) {
      if (Status s = queue.Heartbeat(options.name, std::nullopt, clock.now()); !s) {
        return s.error();
      }
      last_beat = clock.now();
    }
    auto claimed = queue.Claim(options.name);
    if (!claimed) return claimed.error();
    if (!*claimed) {
      if (clock.now() - idle_since >= options.idle_exit_seconds) {
        summary.why_ended = fmt::format("nothing pending for {:.0f} s", options.idle_exit_seconds);
        break;
      }
      clock.sleep(std::min(options.poll_seconds, options.idle_exit_seconds));
      continue;
    }
    const ClaimedWork& work = **claimed;
    std::string problem;
    std::optional<Candidate> candidate;
    if (StringOr(work.payload, "kind") != "evaluate") {
      problem = "unknown kind '" + StringOr(work.payload, "kind") + "'";
    } else {
      candidate = CandidateFromPayload(ObjectAt(work.payload, "candidate"), &problem);
      if (candidate && candidate->id != work.id) {
        problem = "the candidate's id '" + candidate->id + "' is not the queue id";
        candidate.reset();
      }
    }
    json record;
    if (!candidate) {
      ++summary.malformed;
      record = {{"verdict", "lost"}, {"reason", "unreadable queue payload: " + problem}};
      Say(options, work.id + ": unreadable payload (" + problem + ")");
    } else {
      Say(options, work.id + ": evaluating (retry " + std::to_string(work.retries) + ")");
      EvaluationSlot slot;
      slot.attempt_dir = options.run_dir / "attempts" / work.id;
      Expected<std::optional<Attempt>> result = [&] {
        HeartbeatThread beat(fs, queue_dir, options.name, work.id, options.heartbeat_seconds,
                             clock);
        return evaluator.Evaluate(*candidate, slot);
      }();
      if (!result) return result.error();
      if (!*result) {  // Ctrl-C: the claim's lease runs out and another worker takes it
        summary.why_ended = "stopped by a signal";
        break;
      }
      record = {{"attempt", AttemptJson(**result)}};
      ++summary.evaluated;
      Say(options, work.id + ": " + VerdictWord((*result)->verdict));
    }
    last_beat = -1e300;  // the heartbeat thread named the attempt: say it is released
    auto completed = queue.Complete(options.name, work.id, record);
    if (!completed) return completed.error();
    if (*completed == CompleteOutcome::kDuplicateDropped) {
      Say(options, work.id + ": another worker's result came first; this one is dropped");
    }
    idle_since = clock.now();
  }
  (void)queue.Heartbeat(options.name, std::nullopt, clock.now());
  return summary;
}

}  // namespace kb
