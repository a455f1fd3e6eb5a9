// kbuild optimize's candidates through the work queue (work_queue.h, docs/scale-out.md): the
// run side, QueueEvaluator, puts each candidate in the queue and waits for its record
// (queue_client.h); the worker side, CandidateWorkReader, is what `kbuild worker`
// (queue_worker.h) evaluates a candidate payload with, using any CandidateEvaluator (on a
// cluster node: ChildKbuildEvaluator on the node's GPU). A worker that goes silent loses its
// claim after the lease, and an attempt re-queued past the retries is recorded as lost.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/built_tree.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/optimize_evaluator.h"
#include "core/optimize_types.h"
#include "core/queue_client.h"
#include "core/queue_worker.h"

namespace kb {

// The payload kind of a candidate: {"kind": "evaluate", "candidate": CandidatePayload(...)}.
inline constexpr const char* kCandidateWorkKind = "evaluate";

// The candidate as a queue payload: its history line (AttemptJson) plus the files' contents.
nlohmann::json CandidatePayload(const Candidate& candidate);
// The candidate back, or nothing with `problem` set; every path is checked to stay inside the
// project (another host wrote the payload).
std::optional<Candidate> CandidateFromPayload(const nlohmann::json& payload, std::string* problem);

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
  Expected<QueueCounts> Counts() { return client_.Counts(); }

 private:
  QueueClient client_;
};

// The attempt a done record holds for `candidate`: the worker's attempt (its candidate
// replaced by ours: only the verdict and numbers come from the worker), or lost: with the
// record's reason, or, when the record is neither, with why it could not be read.
Attempt AttemptFromDoneRecord(const nlohmann::json& record, const Candidate& candidate);

// The worker's reader of candidate payloads: evaluates each with `evaluator`, its logs and
// the children's documents in <run_dir>/attempts/<id>/. The candidate's id must be the
// queue id. The build and GPU stages run in staged.CopyOf(id) (built_tree.h).
WorkReader CandidateWorkReader(CandidateEvaluator& evaluator, std::filesystem::path run_dir,
                               FileSystem& fs, StagedWorkSetup staged);

}  // namespace kb
