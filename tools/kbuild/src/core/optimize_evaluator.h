// How `kbuild optimize` judges a candidate, behind a seam (CandidateEvaluator)
// so tests drive a whole run with a fake and a later evaluator can spread the
// work over hosts. ChildKbuildEvaluator does it on this host: it writes the
// project (tune_workspace.h's snapshot) with the candidate's files over it into
// a worker's own copy, then runs child `kbuild build`, the full `kbuild test`
// and `kbuild bench --no-peers`, each --json and under a time limit, and reads
// their documents the way tune does (tune_child.h); `kbuild profile` the same
// way for profile.md. One worker per GPU, each seeing only its GPU through
// CUDA_VISIBLE_DEVICES.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/optimize_types.h"
#include "core/process.h"
#include "core/tune_workspace.h"

namespace kb {

// Where an evaluation runs and keeps its records.
struct EvaluationSlot {
  int worker = 0;                     // 0-based
  std::optional<std::string> gpu;     // CUDA_VISIBLE_DEVICES for the children; none = inherit
  std::filesystem::path attempt_dir;  // <run>/attempts/<id>: logs/ and the children's documents
  std::filesystem::path copy;         // the project copy; "" = the worker's own (WorkerCopyDir)
};

// What ChildKbuildEvaluator runs of a candidate: everything, or one of kbuild worker's two
// stages (--role build on a CPU node, --role gpu where the built copy is placed at the same
// path, so nothing compiles there).
enum class CandidateStages { kAll, kBuild, kGpu };

class CandidateEvaluator {
 public:
  virtual ~CandidateEvaluator() = default;
  // The candidate's verdict, first error, timings, tests and timed cases (no
  // score: the run compares with the baseline). Nothing when Ctrl-C stopped
  // it. An error (exit 4: no GPU, nvcc or torch; a write failure) ends the run.
  // Called from one thread per worker at once.
  virtual Expected<std::optional<Attempt>> Evaluate(const Candidate& candidate,
                                                    const EvaluationSlot& slot) = 0;
  // One of kbuild worker's stages; an evaluator that cannot split them refuses (exit 3).
  virtual Expected<std::optional<Attempt>> EvaluateStages(const Candidate& candidate,
                                                          const EvaluationSlot& slot,
                                                          CandidateStages stages) {
    if (stages == CandidateStages::kAll) return Evaluate(candidate, slot);
    return MakeError(ExitCode::kInternal, "this evaluator does not split builds from GPU steps");
  }
  // profile.md of a candidate that passed (optimize profiles the baseline and
  // each new best of an island): its profile on `case_name` as markdown, or
  // one line saying why it could not be profiled. Nothing when Ctrl-C stopped
  // it; an error only when a file cannot be written.
  virtual Expected<std::optional<std::string>> Profile(const Candidate& candidate,
                                                       const std::string& case_name,
                                                       const EvaluationSlot& slot) = 0;
};

struct ChildEvaluatorSetup {
  std::filesystem::path run_dir;
  std::filesystem::path kbuild_exe;
  const ProjectSnapshot* snapshot = nullptr;
  double build_timeout_seconds = 900;
  double test_timeout_seconds = 900;
  double bench_timeout_seconds = 900;
  double profile_timeout_seconds = 900;
  std::string bench_filter;  // kbuild bench --filter ("" = every case)
};

// The file system is touched by the worker threads: it must be thread-safe
// (RealFileSystem is; tests wrap MemoryFileSystem in a lock).
class ChildKbuildEvaluator final : public CandidateEvaluator {
 public:
  ChildKbuildEvaluator(FileSystem& fs, ProcessRunner& runner, ChildEvaluatorSetup setup)
      : fs_(fs), runner_(runner), setup_(std::move(setup)) {}
  Expected<std::optional<Attempt>> Evaluate(const Candidate& candidate,
                                            const EvaluationSlot& slot) override {
    return EvaluateStages(candidate, slot, CandidateStages::kAll);
  }
  // kBuild: the candidate's copy, `kbuild build`, `kbuild test --build-only` and `kbuild bench
  // --build-only`; the attempt when they fail it, else verdict kOk with only build_seconds
  // (built, not judged yet). kGpu: `kbuild test` and `kbuild bench` in slot.copy as the build
  // stage left it (written nowhere first).
  Expected<std::optional<Attempt>> EvaluateStages(const Candidate& candidate,
                                                  const EvaluationSlot& slot,
                                                  CandidateStages stages) override;
  // Child `kbuild profile --json --case CASE` with the candidate's --define in
  // the worker's copy (its build is still there: nothing recompiles); the
  // document is kept as <attempt>/profile.json. Without a GPU or ncu the
  // child still returns the SASS check, and that is what is rendered.
  Expected<std::optional<std::string>> Profile(const Candidate& candidate,
                                               const std::string& case_name,
                                               const EvaluationSlot& slot) override;

 private:
  // The worker's copy holding `candidate`; its path.
  Expected<std::filesystem::path> PrepareCopy(const Candidate& candidate,
                                              const EvaluationSlot& slot);

  FileSystem& fs_;
  ProcessRunner& runner_;
  ChildEvaluatorSetup setup_;
};

// <run>/workers/<n>/project: a worker's copy, rewritten for each candidate
// (only changed files, so its builds stay incremental).
std::filesystem::path WorkerCopyDir(const std::filesystem::path& run_dir, int worker);

// The GPUs `nvidia-smi -L` lists (lines "GPU <n>: ..."); 0 when it cannot run.
int CountGpus(ProcessRunner& runner);

// The devices optimize's workers get, one each, as CUDA_VISIBLE_DEVICES
// values: the entries of `visible` (the caller's CUDA_VISIBLE_DEVICES) when
// set, else "0" .. "<gpus - 1>". Empty when there is none.
std::vector<std::string> WorkerDevices(const std::optional<std::string>& visible, int gpus);

// Evaluates `candidates` at once, candidate i in slots[i] on its own thread
// (slots.size() == candidates.size()). Results in order; the first error wins.
Expected<std::vector<std::optional<Attempt>>> EvaluateAll(CandidateEvaluator& evaluator,
                                                          const std::vector<Candidate>& candidates,
                                                          const std::vector<EvaluationSlot>& slots);

// The verdict of a failed test or bench step, from how the child ended and
// its reason: a time limit, a signal or a CUDA fault (crashed), a harness
// rule (physically impossible speed, unwritten outputs, changed inputs, a side
// stream), else wrong results.
AttemptVerdict FailedRunVerdict(const ProcessResult& result, const std::string& reason);

}  // namespace kb
