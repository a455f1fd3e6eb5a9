// `kbuild optimize`'s loop: the project as it is first (the baseline), then
// attempts until the budget or the time is spent: the island model
// (optimize_islands.h) plans each one, the proposer (optimize_proposer.h)
// writes the candidate, the evaluator (optimize_evaluator.h) builds, tests
// and benchmarks it, and the record is appended to history.jsonl at once.
//
// Run folder results/optimize-<stamp>/:
//   attempts/<id>/context/    what the proposer was given (prompt.md inside)
//   attempts/<id>/out/        what it wrote; logs/ (proposer, build, test, bench)
//   attempts/<id>/planned.json + candidate/   the accepted candidate, saved before
//                             its evaluation: a resumed run evaluates it again
//                             instead of asking the proposer again
//   attempts/<id>/{build,test,bench}.json   the children's documents
//   attempts/baseline/workers/<n>/  the baseline timed on worker n's GPU (several GPUs)
//   attempts/<id>/profile.md (+ profile.json)  when <id> became an island's best:
//                             the context's profile.md of the attempts growing from it
//   workers.jsonl             workers retired because they failed (not their candidate)
//   history.jsonl, summary.md, progress.svg, best/ (the best candidate's files
//   at their project paths, defines.txt when it sets macros)
// Attempt ids count the attempts (a0001, a0002, ...), so a resumed run redoes
// the one a kill interrupted under the same id and counts it once.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/optimize_evaluator.h"
#include "core/optimize_islands.h"
#include "core/optimize_proposer.h"
#include "core/optimize_types.h"
#include "core/optimize_workers.h"

namespace kb {

inline constexpr const char* kOptimizeBaselineId = "baseline";

struct OptimizeOptions {
  std::filesystem::path run_dir;  // from NewOptimizeRunFolder / ResumeOptimizeRunFolder
  bool builtin = false;           // the proposer is the builtin one (origin of its candidates)
  // Profile the baseline and each island's new best (CandidateEvaluator::Profile)
  // for the proposer's profile.md; off for the builtin proposer, which reads no context.
  bool profile = true;
  int budget = 20;                // attempts besides the baseline, counted over resumes
  double time_limit_seconds = 0;  // 0 = none; no new attempt starts after it
  IslandOptions islands;
  // One worker per entry, each evaluating at once with its children seeing
  // that device alone (CUDA_VISIBLE_DEVICES), on distinct islands (at most
  // `islands` at a time). Fewer than two: one at a time on the inherited GPUs.
  std::vector<std::string> worker_devices;
  // With two workers or more on this host's GPUs: time the baseline on each
  // GPU too and score each candidate against its own GPU's baseline (not for
  // queue workers, which may take any candidate on any host).
  bool baseline_on_each_worker = false;
  ProposerTask task;  // sources, references, ...; baseline_cases are filled in here
  std::function<void(const std::string&)> progress;
  std::function<double()> seconds_now;  // default steady_clock
};

struct OptimizeTotals {
  int attempts = 0;  // besides the baseline
  int ok = 0;
  int repairs = 0;
  int with_cost = 0;  // attempts whose proposer reported a cost
  AttemptCost cost;   // summed over those
  double propose_seconds = 0, build_seconds = 0, test_seconds = 0, bench_seconds = 0;
};

struct OptimizeRunResult {
  std::filesystem::path run_dir;
  std::vector<Attempt> attempts;  // the whole history, baseline first
  std::string best_id;            // "" when nothing passed
  double best_score = 0;
  int attempted_now = 0;
  bool stopped = false;  // Ctrl-C / SIGTERM
  bool time_up = false;
  std::string exhausted;  // why the proposer had nothing new (the run ended there); "" = it had
  OptimizeTotals totals;
  std::vector<Migration> migrations;
  std::vector<IslandState> islands;
  std::vector<ArchiveEntry> archive;
  std::vector<std::filesystem::path> files;  // summary.md, progress.svg, best/
  std::vector<std::string> warnings;
  // Workers that failed rather than their candidates (workers.jsonl, over resumes);
  // each was retired and its candidate judged again elsewhere.
  std::vector<WorkerFailure> worker_failures;
  // The baseline as each GPU timed it (baseline_on_each_worker; empty otherwise).
  std::vector<GpuBaseline> gpu_baselines;
  // The attempts after the baseline (and its timing on each GPU): how many this invocation
  // recorded and their wall time, the steady rate that more GPUs should multiply.
  int searched_now = 0;
  double search_seconds = 0;
};

// results/optimize-<stamp> (with -2, -3, ... when taken), not created yet.
Expected<std::filesystem::path> NewOptimizeRunFolder(const FileSystem& fs,
                                                     const std::filesystem::path& project,
                                                     const std::string& stamp);
// --resume DIR checked: a real folder results/optimize-* holding history.jsonl.
Expected<std::filesystem::path> ResumeOptimizeRunFolder(const FileSystem& fs,
                                                        const std::filesystem::path& project,
                                                        const std::filesystem::path& given);

// The whole run. A stop is not an error (`stopped`); errors: exit 4 from the
// evaluator, a history or run file that cannot be read or written.
Expected<OptimizeRunResult> RunOptimize(FileSystem& fs, Proposer& proposer,
                                        CandidateEvaluator& evaluator,
                                        const OptimizeOptions& options);

// What the history adds up to.
OptimizeTotals TotalsOf(const std::vector<Attempt>& attempts);

// summary.md and progress.svg (optimize_render.cpp).
std::string OptimizeSummaryMarkdown(const OptimizeRunResult& r);
std::string OptimizeProgressSvg(const std::vector<Attempt>& attempts, int islands);
// Writes them and best/ (the best candidate's files, defines.txt) into r.run_dir; fills r.files.
Status WriteOptimizeConclusions(FileSystem& fs, OptimizeRunResult& r);

}  // namespace kb
