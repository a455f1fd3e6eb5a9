// kbuild tune --backend queue|slurm (docs/scale-out.md): each variant's evaluation (its build,
// the tests before its benchmark and the benchmark: what EvaluateVariants does for one
// variant) and each finalist's full tests become queue items that `kbuild worker` processes
// evaluate (queue_worker.h). The run side, QueuedTuneEvaluator, keeps up to `jobs` variants
// in the queue and records each result as it comes back, in the order they finish; the worker
// side, TuneWorkReader, evaluates an item with EvaluateVariants or TestFinalist in a node-local
// copy of the project, keeping the children's documents in the run's variants/<id>/.
//
// The payload, queued as <id> (step "benchmark") or <id>-full (step "full-tests"):
//   {"kind": "tune-variant", "step": "benchmark", "id": "v-3f9a...", "defines": ["BLOCK=256"],
//    "full_tests": false, "test_filter": "Gemm.*", "build_tests": true,
//    "bench_filter": "^gemm/", "max_spill_bytes": 0}
// The done record: {"evaluation": <the variant's history line>, "tests_passed": N}, or
// verdict "lost" with a reason (queue_worker.h, work_queue.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/built_tree.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"
#include "core/queue_client.h"
#include "core/queue_worker.h"
#include "core/tune_evaluate.h"
#include "core/tune_types.h"
#include "core/tune_workspace.h"

namespace kb {

inline constexpr const char* kTuneWorkKind = "tune-variant";

enum class TuneWorkStep { kBenchmark, kFullTests };

// The queue id of a variant's step: its id, or "<id>-full".
std::string TuneWorkId(const std::string& variant_id, TuneWorkStep step);

// The payload of `variant`'s step, with the evaluation settings of `setup`.
nlohmann::json TuneWorkPayload(const TuneVariant& variant, TuneWorkStep step,
                               const TuneEvaluateSetup& setup);

// What a payload asks for.
struct TuneWork {
  TuneVariant variant;
  TuneWorkStep step = TuneWorkStep::kBenchmark;
  // full_tests, test_filter, build_tests, filter and max_spill_bytes; nothing else is set.
  TuneEvaluateSetup settings;
};

// The payload back, or nothing with `problem` set. Another host wrote it, so everything is
// checked: the defines follow --define's rules, the id is the one the defines give
// ("defaults" for none) and `queue_id` is its step's, the filters are bounded.
std::optional<TuneWork> TuneWorkFromPayload(const nlohmann::json& payload,
                                            const std::string& queue_id, std::string* problem);

// The evaluation a done record holds for `variant` (its variant replaced by ours: only the
// stage, reason and numbers come from the worker), or kLost: with the record's reason, or,
// when the record is neither, with why it could not be read. `tests_passed` gets its count.
TuneEvaluation EvaluationFromDoneRecord(const nlohmann::json& record, const TuneVariant& variant,
                                        int* tests_passed);

class QueuedTuneEvaluator final : public TuneEvaluator {
 public:
  QueuedTuneEvaluator(FileSystem& fs, std::filesystem::path queue_dir, size_t jobs,
                      QueueTimings timings, QueueClock clock);
  // Queues the variants in order, at most `jobs` out at once and none once setup.may_start()
  // turns false; records each as its result comes back. Items a resumed run finds pending,
  // claimed or done are waited for, not queued again.
  Expected<TuneBatchEnd> Variants(const TuneEvaluateSetup& setup,
                                  const std::vector<TuneVariant>& variants) override;
  // The full tests of `benchmarked` by a worker; its benchmark numbers stay the run's.
  Expected<std::optional<TuneEvaluation>> Finalist(const TuneEvaluateSetup& setup,
                                                   const TuneEvaluation& benchmarked,
                                                   int* tests_passed) override;
  size_t AtOnce() const override { return jobs_; }
  std::string AtOnceText() const override;

 private:
  FileSystem& fs_;
  QueueClient client_;
  size_t jobs_;
};

struct TuneWorkerSetup {
  std::filesystem::path run_dir;     // the run folder: variants/<id>/ keeps the documents
  std::filesystem::path copy_dir;    // node-local scratch: the copy each variant is built in
  std::filesystem::path kbuild_exe;  // the child kbuild
  const ProjectSnapshot* snapshot = nullptr;  // the queue's project/
  StagedWorkSetup staged;                     // the build and GPU stages' copies
};

// The worker's reader of tune payloads. A build stage runs the variant's build phase (for a
// finalist too: its test binary), a GPU stage the rest in the copy as built.
WorkReader TuneWorkReader(FileSystem& fs, ProcessRunner& runner, TuneWorkerSetup setup);

}  // namespace kb
