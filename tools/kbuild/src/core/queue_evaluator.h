// Candidate evaluations through the work queue (work_queue.h, docs/scale-out.md): the run side,
// QueueEvaluator, puts each candidate in the queue and waits for its record; the worker side,
// RunQueueWorker (what `kbuild worker` runs), claims candidates and evaluates them with any
// CandidateEvaluator (on a cluster node: ChildKbuildEvaluator on the node's GPU). Workers may
// run anywhere the queue folder is shared; a worker that goes silent loses its claim after the
// lease, and an attempt re-queued past the retries is recorded as lost.
#pragma once

#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/optimize_evaluator.h"
#include "core/optimize_types.h"
#include "core/work_queue.h"

namespace kb {

// The candidate as a queue payload: its history line (AttemptJson) plus the files' contents.
nlohmann::json CandidatePayload(const Candidate& candidate);
// The candidate back, or nothing with `problem` set; every path is checked to stay inside the
// project (another host wrote the payload).
std::optional<Candidate> CandidateFromPayload(const nlohmann::json& payload, std::string* problem);

// Seconds on some clock, and a way to wait; tests pass fakes.
struct QueueClock {
  std::function<double()> now;
  std::function<void(double seconds)> sleep;
};
QueueClock RealQueueClock();

struct QueueTimings {
  double poll_seconds = 2;     // between looks at the queue
  double lease_seconds = 120;  // a claim whose worker was silent this long goes back to pending
  int max_retries = 2;         // re-queues of one attempt before it is lost
};

class QueueEvaluator final : public CandidateEvaluator {
 public:
  QueueEvaluator(FileSystem& fs, std::filesystem::path queue_dir, QueueTimings timings,
                 QueueClock clock);
  // Enqueues the candidate (unless a resumed run finds it pending, claimed or done already)
  // and waits for done/<id>.json; re-queues claims of silent workers meanwhile. Nothing when
  // Ctrl-C stopped the wait. Called from several threads at once.
  Expected<std::optional<Attempt>> Evaluate(const Candidate& candidate,
                                            const EvaluationSlot& slot) override;
  // Workers do not profile yet: one line that says so.
  Expected<std::optional<std::string>> Profile(const Candidate& candidate,
                                               const std::string& case_name,
                                               const EvaluationSlot& slot) override;
  // pending / claimed / done, for progress lines.
  Expected<QueueCounts> Counts();

 private:
  WorkQueue queue_;
  QueueTimings timings_;
  QueueClock clock_;
  std::mutex mutex_;  // one thread at a time in the queue folder
};

// The attempt a done record holds for `candidate`: the worker's attempt (its candidate
// replaced by ours: only the verdict and numbers come from the worker), or lost: with the
// record's reason, or, when the record is neither, with why it could not be read.
Attempt AttemptFromDoneRecord(const nlohmann::json& record, const Candidate& candidate);

struct QueueWorkerOptions {
  std::string name;                // the worker's queue name (CheckQueueName)
  std::filesystem::path run_dir;   // attempts/<id>/ are kept here (the queue's run folder)
  double idle_exit_seconds = 300;  // ends after this long with nothing pending
  double poll_seconds = 2;         // between looks at pending/ while idle
  double heartbeat_seconds = 10;   // between heartbeats, idle or busy
  std::function<void(const std::string&)> progress;  // one line per event; may be empty
};

struct QueueWorkerSummary {
  int evaluated = 0;
  int malformed = 0;      // payloads it could not read (recorded as lost with the reason)
  std::string why_ended;  // "stop requested", "idle for N s", "stopped by a signal"
};

// Claims and evaluates until queue/stop appears, nothing was pending for idle_exit_seconds, or
// Ctrl-C; beats its heartbeat meanwhile, also while an evaluation runs (from a second thread).
// An error ends it only when the queue folder cannot be written.
Expected<QueueWorkerSummary> RunQueueWorker(FileSystem& fs, const std::filesystem::path& queue_dir,
                                            CandidateEvaluator& evaluator,
                                            const QueueWorkerOptions& options, QueueClock clock);

}  // namespace kb
