// The run's side of the work queue (work_queue.h, docs/scale-out.md), shared by kbuild
// optimize's candidates (queue_evaluator.h) and kbuild tune's variants (tune_queue.h): puts an
// item in the queue once, also over a resume, and waits for its done record while it sends the
// claims of silent workers back to pending/ (past the retries: recorded lost).
#pragma once

#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/work_queue.h"

namespace kb {

// Seconds on some clock, and a way to wait; tests pass fakes.
struct QueueClock {
  std::function<double()> now;
  std::function<void(double seconds)> sleep;
};
QueueClock RealQueueClock();

struct QueueTimings {
  double poll_seconds = 2;     // between looks at the queue
  double lease_seconds = 120;  // a claim whose worker was silent this long goes back to pending
  int max_retries = 2;         // re-queues of one item before it is lost
};

// Safe to call from several threads at once (one at a time in the queue folder).
class QueueClient {
 public:
  QueueClient(FileSystem& fs, std::filesystem::path queue_dir, QueueTimings timings,
              QueueClock clock);
  // Enqueues `payload` as `id` unless a resumed run finds it pending, claimed or done
  // already: an item is never queued twice.
  Status Submit(const std::string& id, const nlohmann::json& payload);
  // Waits until one of `ids` has its done record and returns it, re-queueing silent workers'
  // claims meanwhile. Nothing when Ctrl-C stopped the wait.
  Expected<std::optional<DoneRecord>> WaitForAny(const std::vector<std::string>& ids);
  // pending / claimed / done, for progress lines.
  Expected<QueueCounts> Counts();

 private:
  WorkQueue queue_;
  QueueTimings timings_;
  QueueClock clock_;
  std::mutex mutex_;
};

}  // namespace kb
