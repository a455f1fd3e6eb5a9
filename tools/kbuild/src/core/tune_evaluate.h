// Evaluating variants for `kbuild tune` (tune_runner.h): each one's copy of
// the project is built on a worker thread, up to `build_jobs` at once, by a
// child `kbuild build` and then `kbuild test --build-only` and `kbuild bench
// --build-only` with the same --define arguments, while the variants already
// built are tested (the full suite, the test-filter subset or not at all) and
// benchmarked one at a time (the GPU is one shared instrument). The GPU
// steps' children so find their harness binaries up to date and compile
// nothing: the GPU never waits for a compiler. Each finished variant is appended
// to the history before the next one is judged. The benchmark checks every
// case's values against the reference before and after timing, so a variant
// that computes wrong results fails there even without tests. Finalists get
// the full suite afterwards (TestFinalist).
//
// Off the main thread: ProcessRunner::Run, and the one read of a variant's
// own build log (ptxas's spill report, read after `kbuild build` and before
// the harness builds replace the log); everything else on the file system
// happens on the main thread.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"
#include "core/tune_types.h"
#include "core/tune_workspace.h"

namespace kb {

struct TuneEvaluateSetup {
  std::filesystem::path run_dir;  // history.jsonl, variants/<id>/ (the children's documents)
  // Every variant's copy of the project, one variant at a time (a queue worker's node-local
  // scratch); "" = each its own <run>/variants/<id>/project.
  std::filesystem::path copy_dir;
  // False on a queue worker: the run records what the worker sends back.
  bool record_history = true;
  std::filesystem::path kbuild_exe;
  const ProjectSnapshot* snapshot = nullptr;
  int max_spill_bytes = 0;
  int build_jobs = 2;
  std::string filter;       // kbuild bench --filter
  bool full_tests = true;   // the full `kbuild test` before each benchmark
  std::string test_filter;  // else `kbuild test --filter` ("": no tests)
  // Whether any variant of this batch may run tests (here or as a finalist): its test binary is
  // built in the build phase too.
  bool build_tests = true;
  // False once no new build may start (--time ran out); the variants already
  // building are still tested and benchmarked.
  std::function<bool()> may_start;
  // Called on the main thread after each record is appended, with the number
  // of tests the variant passed (0 when it did not get that far).
  std::function<void(const TuneEvaluation&, int tests_passed)> on_recorded;
};

// How a batch ended.
enum class TuneBatchEnd {
  kDone,     // every variant recorded
  kHalted,   // may_start() turned false: the rest are left for --resume
  kStopped,  // Ctrl-C / SIGTERM: the variants in flight were not recorded
};

// The folder of a variant's copy and child documents: <run>/variants/<id>.
std::filesystem::path TuneVariantDir(const std::filesystem::path& run_dir, const std::string& id);

// Appends `e` to <run>/history.jsonl (unless !record_history; its reason cleared when it is
// kDone) and, with `notify`, tells on_recorded.
Status RecordEvaluation(FileSystem& fs, const TuneEvaluateSetup& setup, TuneEvaluation& e,
                        int tests_passed, bool notify);

// Evaluates `variants` in order, appending each to <run>/history.jsonl.
// Exit 4 (with the child's message) when a child reports no GPU, nvcc or
// torch; a history or copy that cannot be written is an error too.
Expected<TuneBatchEnd> EvaluateVariants(FileSystem& fs, ProcessRunner& runner,
                                        const TuneEvaluateSetup& setup,
                                        const std::vector<TuneVariant>& variants);

// The full test suite on a benchmarked variant (a finalist), in its copy
// (written again from the snapshot first: a resumed run may be on another
// disk). Returns the record appended to the history: `benchmarked` with
// tests kFull, or stage kTestFailed with the reason; nullopt when stopped.
// `tests_passed` gets the suite's count. Exit 4 as for EvaluateVariants.
Expected<std::optional<TuneEvaluation>> TestFinalist(FileSystem& fs, ProcessRunner& runner,
                                                     const TuneEvaluateSetup& setup,
                                                     const TuneEvaluation& benchmarked,
                                                     int* tests_passed);

// kbuild worker's two stages of one variant (--role build, then --role gpu where the built
// copy is placed at the same path, so nothing compiles there). BuildVariantStage writes the
// copy and runs the build phase: `built` with build_seconds and spill_bytes, or the variant's
// evaluation when the build phase ends it (recorded: a build failure, spills). RunBuiltVariant
// runs the tests before the benchmark and the benchmark in that copy as it is, and records
// `built` with their results. Nothing when stopped; exit 4 as for EvaluateVariants.
struct TuneBuildStage {
  TuneEvaluation evaluation;
  bool built = false;
};
Expected<std::optional<TuneBuildStage>> BuildVariantStage(FileSystem& fs, ProcessRunner& runner,
                                                          const TuneEvaluateSetup& setup,
                                                          const TuneVariant& variant);
Expected<std::optional<TuneEvaluation>> RunBuiltVariant(FileSystem& fs, ProcessRunner& runner,
                                                        const TuneEvaluateSetup& setup,
                                                        const TuneEvaluation& built,
                                                        int* tests_passed);

// Where a run's variants are evaluated: on this host (LocalTuneEvaluator) or by queue workers
// (tune_queue.h). Both record each variant through RecordEvaluation.
class TuneEvaluator {
 public:
  virtual ~TuneEvaluator() = default;
  virtual Expected<TuneBatchEnd> Variants(const TuneEvaluateSetup& setup,
                                          const std::vector<TuneVariant>& variants) = 0;
  virtual Expected<std::optional<TuneEvaluation>> Finalist(const TuneEvaluateSetup& setup,
                                                           const TuneEvaluation& benchmarked,
                                                           int* tests_passed) = 0;
  // Variants evaluated at once (an evolve round is twice this), and in words for the progress
  // line ("2 builds at a time").
  virtual size_t AtOnce() const = 0;
  virtual std::string AtOnceText() const = 0;
};

// EvaluateVariants and TestFinalist, `build_jobs` builds at once.
class LocalTuneEvaluator final : public TuneEvaluator {
 public:
  LocalTuneEvaluator(FileSystem& fs, ProcessRunner& runner, int build_jobs)
      : fs_(fs), runner_(runner), build_jobs_(build_jobs) {}
  Expected<TuneBatchEnd> Variants(const TuneEvaluateSetup& setup,
                                  const std::vector<TuneVariant>& variants) override {
    return EvaluateVariants(fs_, runner_, setup, variants);
  }
  Expected<std::optional<TuneEvaluation>> Finalist(const TuneEvaluateSetup& setup,
                                                   const TuneEvaluation& benchmarked,
                                                   int* tests_passed) override {
    return TestFinalist(fs_, runner_, setup, benchmarked, tests_passed);
  }
  size_t AtOnce() const override { return static_cast<size_t>(build_jobs_); }
  std::string AtOnceText() const override;

 private:
  FileSystem& fs_;
  ProcessRunner& runner_;
  int build_jobs_;
};

}  // namespace kb
