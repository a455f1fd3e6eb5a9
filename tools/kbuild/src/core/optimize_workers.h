// The GPUs of a local `kbuild optimize` run, one worker each, and what
// happens when a worker fails rather than its candidate: a child of the
// evaluation killed by a signal that was not the run's own Ctrl-C, or its GPU
// unusable for tests or benchmarks (the child's exit 4). The evaluator marks
// such an attempt (Attempt::worker_failure); the pool then retires the
// worker for the rest of the run, records the failure (workers.jsonl in the
// run folder, summary.md, the --json output) and evaluates the candidate
// again on a worker still alive, at most kMaxWorkerReruns times (then it is
// recorded lost), so no attempt is lost or counted twice. With no worker left
// the run ends with exit 4; --resume evaluates the saved candidates again.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/optimize_evaluator.h"
#include "core/optimize_types.h"

namespace kb {

inline constexpr const char* kWorkerFailuresFile = "workers.jsonl";
inline constexpr int kMaxWorkerReruns = 2;

struct WorkerFailure {
  int worker = 0;       // 0-based
  std::string device;   // its CUDA_VISIBLE_DEVICES value ("" = the inherited GPUs)
  std::string attempt;  // the candidate it was evaluating
  std::string reason;   // one line
};

// {"worker", "device", "attempt", "reason"}: a line of workers.jsonl, and of
// kbuild optimize --json's "worker_failures".
nlohmann::json WorkerFailureJson(const WorkerFailure& failure);
// "worker 1 (GPU 5) while judging a0004: <reason>".
std::string WorkerFailureText(const WorkerFailure& failure);

// Appends one line to <run>/workers.jsonl.
Status AppendWorkerFailure(FileSystem& fs, const std::filesystem::path& run_dir,
                           const WorkerFailure& failure);
// The failures recorded so far (empty without the file; a line cut short by a
// kill, or one that is not a failure record, is skipped). Exit 2 for a link.
Expected<std::vector<WorkerFailure>> ReadWorkerFailures(const FileSystem& fs,
                                                        const std::filesystem::path& run_dir);

// The workers still alive, by index into the run's devices.
class WorkerPool {
 public:
  explicit WorkerPool(std::vector<std::string> devices);
  int live() const { return static_cast<int>(live_.size()); }
  const std::vector<int>& live_workers() const { return live_; }
  const std::string& device(int worker) const { return devices_.at(static_cast<size_t>(worker)); }
  // Where `worker` evaluates: its GPU alone, its own project copy, records in attempt_dir.
  EvaluationSlot SlotFor(int worker, std::filesystem::path attempt_dir) const;
  void Retire(int worker);

 private:
  std::vector<std::string> devices_;
  std::vector<int> live_;
};

// A batch judged by the pool: one result per candidate, in order, and the
// worker that judged it (-1: none). A result is nothing when Ctrl-C stopped
// its evaluation, or when no worker was left to judge it (`workers_gone`
// then says why; the caller records the results before the first such one
// and ends the run with it).
struct BatchOutcome {
  std::vector<std::optional<Attempt>> results;
  std::vector<int> judged_by;
  std::optional<Error> workers_gone;
};

// The baseline as one worker's GPU timed it, against the run's baseline
// (timed on the inherited GPUs before the workers start).
struct GpuBaseline {
  int worker = 0;
  std::string device;
  double vs_run = 0;    // geometric mean of run baseline / this one over the cases; 0 = failed
  std::string problem;  // why it has no times ("" when vs_run > 0)
};

// Baselines of GPUs count as consistent within this fraction (kbuild bench
// --compare's floor): past it the GPUs differ, and scoring each candidate
// against its own GPU's baseline is what keeps the ranking fair.
inline constexpr double kGpuBaselineTolerance = 0.03;

// "GPU 3 1.002x, GPU 5 0.498x" and, when two differ past the tolerance,
// "; they differ by 50.2%".
std::string GpuBaselinesText(const std::vector<GpuBaseline>& baselines);

// What becomes of the candidate whose worker failed.
enum class AfterWorkerFailure {
  kJudgedAgain,   // on another live worker
  kLost,          // its workers failed more than kMaxWorkerReruns times
  kNoWorkerLeft,  // the run ends with exit 4; --resume judges it
};

// What the progress line says comes next: "it is retired; a0004 is judged
// again on another worker (at most 2 times)", "... is recorded lost ...",
// "no other worker is left".
std::string AfterWorkerFailureText(AfterWorkerFailure next, const std::string& attempt);

// Evaluates candidates[i] (attempt folder attempt_dirs[i]) at once, one per
// live worker (candidates.size() <= pool.live()); a worker failure retires
// its worker, calls on_failure (which records it and says what comes next)
// and judges the candidate again on another live worker, up to
// kMaxWorkerReruns times, after which its result is a `lost` attempt. An
// error (exit 4 from a child's build, a write failure, or on_failure's) ends
// the run.
Expected<BatchOutcome> EvaluateOnWorkers(
    CandidateEvaluator& evaluator, WorkerPool& pool, const std::vector<Candidate>& candidates,
    const std::vector<std::filesystem::path>& attempt_dirs,
    const std::function<Status(const WorkerFailure&, AfterWorkerFailure)>& on_failure);

}  // namespace kb
