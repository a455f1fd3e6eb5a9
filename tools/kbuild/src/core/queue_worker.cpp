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
                                 const ClaimedWork& work, WorkStage stage, std::string* problem) {
  const std::string kind = StringOr(work.payload, "kind");
  const auto reader = readers.find(kind);
  if (reader == readers.end()) {
    *problem = "unknown kind '" + kind + "'";
    return std::nullopt;
  }
  return reader->second(work, stage, problem);
}

// The next item for `role` and what to do with it; nothing when none is waiting.
Expected<std::optional<std::pair<ClaimedWork, WorkStage>>> ClaimFor(WorkQueue& queue,
                                                                    const std::string& name,
                                                                    WorkerRole role) {
  using Claimed = std::optional<std::pair<ClaimedWork, WorkStage>>;
  if (role != WorkerRole::kBuild) {
    auto built = queue.Claim(name, ClaimFrom::kBuilt);
    if (!built) return built.error();
    if (*built) return Claimed(std::make_pair(std::move(**built), WorkStage::kGpu));
    if (role == WorkerRole::kGpu) return Claimed();
  }
  auto pending = queue.Claim(name, ClaimFrom::kPending);
  if (!pending) return pending.error();
  if (!*pending) return Claimed();
  return Claimed(std::make_pair(
      std::move(**pending), role == WorkerRole::kBuild ? WorkStage::kBuild : WorkStage::kWhole));
}

constexpr const char* StageWord(WorkStage stage) {
  switch (stage) {
    case WorkStage::kBuild:
      return "building";
    case WorkStage::kGpu:
      return "testing and benchmarking the built copy";
    default:
      return "evaluating";
  }
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
    auto claimed = ClaimFor(queue, options.name, options.role);
    if (!claimed) return claimed.error();
    if (!*claimed) {
      if (clock.now() - idle_since >= options.idle_exit_seconds) {
        summary.why_ended = fmt::format("nothing pending for {:.0f} s", options.idle_exit_seconds);
        break;
      }
      clock.sleep(std::min(options.poll_seconds, options.idle_exit_seconds));
      continue;
    }
    const ClaimedWork& work = (*claimed)->first;
    const WorkStage stage = (*claimed)->second;
    std::string problem;
    const std::optional<PreparedWork> prepared = Read(readers, work, stage, &problem);
    json record;
    bool built = false;
    if (!prepared) {
      ++summary.malformed;
      record = {{"verdict", "lost"}, {"reason", "unreadable queue payload: " + problem}};
      Say(options, work.id + ": unreadable payload (" + problem + ")");
    } else {
      Say(options,
          work.id + ": " + StageWord(stage) + " (retry " + std::to_string(work.retries) + ")");
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
      built = (*result)->built;
      ++(built ? summary.built : summary.evaluated);
      Say(options, work.id + ": " + (*result)->word);
    }
    last_beat = -1e300;  // the heartbeat thread named the item: say it is released
    if (built) {
      auto published = queue.PublishBuilt(options.name, work.id, record);
      if (!published) {  // the lease ran out meanwhile: another worker has it; go on
        Say(options, work.id + ": " + published.error().message);
      } else if (!*published) {
        Say(options, work.id + ": another worker's result came first; this build is dropped");
      }
      idle_since = clock.now();
      continue;
    }
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
