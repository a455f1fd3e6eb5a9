#include "core/queue_worker.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/json_fields.h"
#include "core/periodic_thread.h"
#include "core/stop_signal.h"

namespace kb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The worker's heartbeat, naming the item it holds, every `seconds` from its own thread while
// an evaluation runs, so a long one keeps its claim. Its own WorkQueue: the worker's thread
// uses the other.
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

// The reader of the payload's kind applied to it, or nothing with `problem` set.
std::optional<PreparedWork> Read(const std::map<std::string, WorkReader>& readers,
                                 const ClaimedWork& work, std::string* problem) {
  const std::string kind = StringOr(work.payload, "kind");
  const auto reader = readers.find(kind);
  if (reader == readers.end()) {
    *problem = "unknown kind '" + kind + "'";
    return std::nullopt;
  }
  return reader->second(work, problem);
}

}  // namespace

Expected<QueueWorkerSummary> RunQueueWorker(FileSystem& fs, const fs::path& queue_dir,
                                            const std::map<std::string, WorkReader>& readers,
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
    const std::optional<PreparedWork> prepared = Read(readers, work, &problem);
    json record;
    if (!prepared) {
      ++summary.malformed;
      record = {{"verdict", "lost"}, {"reason", "unreadable queue payload: " + problem}};
      Say(options, work.id + ": unreadable payload (" + problem + ")");
    } else {
      Say(options, work.id + ": evaluating (retry " + std::to_string(work.retries) + ")");
      Expected<std::optional<WorkResult>> result = [&] {
        HeartbeatThread beat(fs, queue_dir, options.name, work.id, options.heartbeat_seconds,
                             clock);
        return (*prepared)();
      }();
      if (!result) return result.error();
      if (!*result) {  // Ctrl-C: the claim's lease runs out and another worker takes it
        summary.why_ended = "stopped by a signal";
        break;
      }
      record = std::move((*result)->record);
      ++summary.evaluated;
      Say(options, work.id + ": " + (*result)->word);
    }
    last_beat = -1e300;  // the heartbeat thread named the item: say it is released
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
