// kbuild tune: search the compile-time parameters a project declares in
// kbuild.toml [tune]: build each variant in its own copy of the project,
// test and benchmark it, rank the valid ones against the defaults, and write
// results/tune-<timestamp>/ (history, summary, heatmap, dispatch header).
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <system_error>

#include "commands/backend_flags.h"
#include "commands/command.h"
#include "core/harness_targets.h"
#include "core/kbuild_home.h"
#include "core/report.h"
#include "core/run_throughput.h"
#include "core/tune_finalists.h"
#include "core/tune_queue.h"
#include "core/tune_results.h"
#include "core/tune_runner.h"

namespace kb {

namespace {

constexpr size_t kRankingLinesShown = 5;

struct TuneFlags {
  int budget = -1;  // -1 = every valid point, at most kDefaultTuneBudget
  double time = 0;
  std::string strategy = "grid";
  uint64_t seed = 0;
  int build_jobs = 2;
  std::optional<std::string> filter;
  std::optional<std::string> test_filter;
  std::string full_tests = "3";
  std::string resume;
  BackendFlags backend;
  bool json = false;
};

// --backend queue|slurm: variants in the queue at once, and the array's tasks.
constexpr int kDefaultQueueJobs = 4;

// The running executable, so each variant is built by this very kbuild.
std::string ResumeCommand(const GlobalOptions& global, const TuneFlags& flags,
                          const TuneRunResult& r, const std::filesystem::path& project) {
  const std::string at = global.project_dir == "." ? "" : " -C " + global.project_dir.string();
  const std::string backend = flags.backend.Queued() ? " --backend " + flags.backend.backend : "";
  return "kbuild" + at + " tune" + backend + " --resume " +
         r.run_dir.lexically_relative(project).string();
}

const TuneEvaluation* Find(const TuneRunResult& r, const std::string& id) {
  for (const auto& e : r.evaluations) {
    if (e.variant.id == id) return &e;
  }
  return nullptr;
}

nlohmann::json ParamsJson(const TuneVariant& v) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : v.values) params[name] = value;
  return params;
}

nlohmann::json ScoredJson(const TuneRunResult& r, const RankedVariant& v) {
  const TuneEvaluation* e = Find(r, v.id);
  return {{"id", v.id},
          {"params", ParamsJson(e ? e->variant : TuneVariant{})},
          {"score", v.score},
          {"worst_case", v.worst_case},
          {"worst_speedup", v.worst_speedup}};
}

void ReportRanking(const TuneRunResult& r, Report& report) {
  auto& data = report.data();
  data["ranking"] = nlohmann::json::array();
  for (size_t i = 0; i < r.ranking.ranked.size(); ++i) {
    const RankedVariant& v = r.ranking.ranked[i];
    nlohmann::json entry = {{"rank", i + 1}};
    entry.update(ScoredJson(r, v));
    data["ranking"].push_back(entry);
    if (i < kRankingLinesShown) {
      const TuneEvaluation* e = Find(r, v.id);
      report.Line(fmt::format("{:>3}. {:.3f}x  {} {} (worst: {} {:.2f}x)", i + 1, v.score, v.id,
                              TuneValuesText(e ? e->variant : TuneVariant{}), v.worst_case,
                              v.worst_speedup));
    }
  }
  data["not_fully_tested"] = nlohmann::json::array();
  for (const auto& v : r.ranking.screened) data["not_fully_tested"].push_back(ScoredJson(r, v));
  if (!r.ranking.screened.empty()) {
    const RankedVariant& top = r.ranking.screened.front();
    report.Line(fmt::format("{} more benchmarked, not fully tested (best: {} {:.3f}x)",
                            r.ranking.screened.size(), top.id, top.score));
  }
  data["unranked"] = nlohmann::json::array();
  for (const auto& u : r.ranking.unranked) {
    data["unranked"].push_back({{"id", u.id}, {"reason", u.reason}});
  }
  data["buckets"] = nlohmann::json::array();
  for (const auto& b : r.best) {
    data["buckets"].push_back({{"label", b.bucket.label},
                               {"max_bytes", b.bucket.max_bytes},
                               {"id", b.id},
                               {"score", b.score},
                               {"cases", b.cases}});
    report.Line(fmt::format("best for {}: {} ({:.3f}x over {} case{})", b.bucket.label, b.id,
                            b.score, b.cases, b.cases == 1 ? "" : "s"));
  }
}

nlohmann::json Counts(const TuneRunResult& r) {
  int valid = 0;
  for (const auto& e : r.evaluations) valid += e.stage == TuneStage::kDone ? 1 : 0;
  return {{"evaluated", r.evaluations.size()},
          {"evaluated_now", r.evaluated_now},
          {"valid", valid},
          {"invalid", static_cast<int>(r.evaluations.size()) - valid},
          {"ranked", r.ranking.ranked.size()},
          {"not_fully_tested", r.ranking.screened.size()},
          {"finalists_tested_now", r.finalists_tested_now}};
}

int RunTuneCommand(const GlobalOptions& global, const TuneFlags& flags) {
  Report report("tune", flags.json);
  auto full_tests = ParseFullTests(flags.full_tests);
  if (!full_tests) return report.Fail(full_tests.error());
  const SlurmOptions slurm =
      WorkerArrayOptions(flags.backend, flags.backend.jobs.value_or(kDefaultQueueJobs));
  if (Status ok = CheckBackendFlags(flags.backend, slurm); !ok) return report.Fail(ok.error());
  RealFileSystem fs;
  RealProcessRunner runner;
  TuneOptions options;
  options.full_tests = *full_tests;
  options.test_filter = flags.test_filter;
  options.project_dir = std::filesystem::absolute(global.project_dir).lexically_normal();
  if (options.project_dir.filename().empty())
    options.project_dir = options.project_dir.parent_path();
  options.kbuild_exe = RunningExecutable();
  options.strategy = flags.strategy;
  if (flags.budget >= 0) options.budget = static_cast<size_t>(flags.budget);
  options.time_limit_seconds = flags.time;
  options.seed = flags.seed;
  options.build_jobs = flags.build_jobs;
  options.filter = flags.filter;
  if (!flags.resume.empty()) options.resume = flags.resume;
  options.stamp = FileTimestamp();
  options.progress = [&report](const std::string& line) { report.Progress(line); };
  std::unique_ptr<QueueBackend> backend;
  if (flags.backend.Queued()) {
    options.make_evaluator =
        [&](const std::filesystem::path& run_dir,
            const ProjectSnapshot& snapshot) -> Expected<std::unique_ptr<TuneEvaluator>> {
      const std::filesystem::path queue_dir = run_dir / "queue";
      // Each payload carries tune's settings; config.json's are optimize's.
      auto started = QueueBackend::Start(
          fs, runner, BackendOptions(flags.backend, slurm, options.kbuild_exe, {}), queue_dir,
          snapshot, options.progress);
      if (!started) return started.error();
      backend = std::move(*started);
      return std::unique_ptr<TuneEvaluator>(std::make_unique<QueuedTuneEvaluator>(
          fs, queue_dir, static_cast<size_t>(slurm.tasks),
          QueueTimings{.poll_seconds = 2, .lease_seconds = flags.backend.LeaseSeconds()},
          RealQueueClock()));
    };
  }
  auto result = RunTune(fs, runner, options);
  const std::string job_id = backend ? backend->job_id() : "";
  const std::string build_job_id = backend ? backend->build_job_id() : "";
  if (backend) backend->Finish();
  if (!result) return report.Fail(result.error());
  const TuneRunResult& r = *result;
  for (const auto& warning : r.warnings) report.Warning(warning);

  ReportRanking(r, report);
  for (const auto& file : r.files) report.Line("wrote " + file.string());
  report.Line("history: " + (r.run_dir / "history.jsonl").string());
  // Local variants share the one GPU; queued ones go to --jobs workers at once.
  const RunThroughput throughput{r.searched_now, r.search_seconds,
                                 flags.backend.Queued() ? slurm.tasks : 1};
  report.Line(ThroughputLine(throughput));
  const std::string resume = ResumeCommand(global, flags, r, options.project_dir);
  if (r.stopped || r.time_up) report.Line("to continue: " + resume);
  auto& data = report.data();
  data["run_dir"] = r.run_dir.string();
  data["backend"] = flags.backend.backend;
  if (!job_id.empty()) data["slurm_job"] = job_id;
  if (!build_job_id.empty()) data["slurm_build_job"] = build_job_id;
  data["baseline"] = r.baseline_id;
  data["counts"] = Counts(r);
  data["throughput"] = ThroughputJson(throughput);
  data["stopped"] = r.stopped;
  data["time_up"] = r.time_up;
  data["resume"] = resume;
  data["files"] = nlohmann::json::array();
  for (const auto& file : r.files) data["files"].push_back(file.string());
  return report.Finish(ExitCode::kOk);
}

}  // namespace

void AddTuneCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "tune",
      "Search the compile-time parameters of kbuild.toml [tune] (macros the kernel reads, "
      "-DNAME=VALUE): build each variant in its own copy of the project (in parallel on the "
      "CPUs), benchmark it (the benchmark checks every case's values against the reference "
      "before and after timing), run the full test suite on the best ones (--full-tests), and "
      "rank the fully tested ones by the geometric mean speedup over the project's defaults, "
      "overall and per shape bucket. Writes results/tune-<timestamp>/.");
  auto flags = std::make_shared<TuneFlags>();
  sub->add_option("--budget", flags->budget,
                  "Variants to evaluate besides the defaults (default: every valid point of the "
                  "space, at most 256)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--time", flags->time,
                  "Seconds after which no new variant starts (those building still finish, and "
                  "the finalists still get their full tests)")
      ->check(kPositiveNumber);
  sub->add_option("--strategy", flags->strategy,
                  "grid (in order, first parameter slowest), random (--seed), or evolve "
                  "(neighbours of the best so far)")
      ->check(CLI::IsMember({"grid", "random", "evolve"}));
  sub->add_option("--seed", flags->seed, "Seed of random and evolve (default: 0)");
  sub->add_option("--build-jobs", flags->build_jobs,
                  "Variants built at once, each with one compile job (default: 2)")
      ->check(CLI::Range(1, 64));
  sub->add_option(
         "--full-tests", flags->full_tests,
         "Variants that must pass the full kbuild test suite, best-scored first; a "
         "finalist that fails is invalid and the next best is tested in its place "
         "(default: 3); then the best benchmarked variant of each shape bucket when it beats "
         "the bucket's best fully tested one by over 2%, so tuned_config.h can use it "
         "(none with 0). 'all': every variant runs the full "
         "suite before its benchmark")
      ->type_name("N|all");
  sub->add_option("--test-filter", flags->test_filter,
                  "Every variant also runs kbuild test --filter with this GoogleTest pattern "
                  "before its benchmark (default: kbuild.toml [tune] test-filter; '' for none)");
  sub->add_option("--filter", flags->filter,
                  "Benchmark and rank on the cases matching this regular expression (kbuild "
                  "bench --filter; default: kbuild.toml [tune] bench-filter; '' for every case)");
  sub->add_option("--resume", flags->resume,
                  "Continue an interrupted run: its folder results/tune-<timestamp> (relative to "
                  "the project); recorded variants and finalists are not evaluated again");
  AddBackendOptions(*sub, flags->backend, "variant",
                    "queue, slurm: variants in the queue at once (default: 4); slurm: the "
                    "array's tasks, one GPU each");
  AddJsonFlag(*sub, flags->json);
  sub->footer(
      "Each variant: kbuild -C results/tune-<t>/variants/<id>/project build --define ... -j1, "
      "then test --build-only and bench --build-only with the same --define (the harness "
      "binaries, compiled on the CPUs while the GPU runs other variants; its build time counts "
      "all three), then on the GPU, one variant at a time, (with a test filter) test --filter, "
      "then bench --no-baselines (the variant alone is timed), which find their binaries up to "
      "date. The benchmark checks the "
      "values of every case it runs before and after "
      "timing, so a variant that computes wrong results is invalid without the tests. The "
      "defaults (no --define) are evaluated first as the baseline, with the full suite. Then "
      "the finalists: the full suite on the best-scored variants until --full-tests of them "
      "passed, then on each shape bucket's best benchmarked variant (when over 2% faster than "
      "the bucket's best fully tested one). Only fully tested variants rank as best or enter "
      "tuned_config.h; the others "
      "are listed as benchmarked, not fully tested, with their timings. A variant is invalid, "
      "never ranked, when its build, tests or benchmark fail, or ptxas reports more register "
      "spill stores than max-spill-bytes. The progress line of each variant ends with an "
      "estimate of the time left (mean seconds per variant so far x variants left).\n"
      "Output: results/tune-<t>/history.jsonl (one line per variant, appended as each "
      "finishes, and again when a finalist's full tests end), summary.md, heatmap.svg "
      "(variants x cases, % of peak), tuned_config.h (the best configuration per shape "
      "bucket, chosen at run time by bytes moved), and per variant its copy with build/logs/ "
      "and the children's build.json, test-build.json, bench-build.json, test.json, bench.json. "
      "Ctrl-C stops after ending the "
      "children; --resume continues, also among the finalists.\n"
      "--backend queue or slurm: the run writes results/tune-<t>/queue/ (config.json, project/ "
      "as snapshotted, pending/, claimed/, done/, workers/) and hands each variant's evaluation "
      "(its build, the tests before its benchmark, the benchmark, as above) and each "
      "finalist's full tests to kbuild worker processes (kbuild worker --help): each worker "
      "takes one at a time, builds it with one compile job in a copy in node-local scratch, "
      "and keeps the children's documents in variants/<id>/ (the copy and its build/logs/ "
      "stay on the worker's host). At most --jobs variants are out at once (--build-jobs "
      "does not apply); results are recorded as they come back, in the order they finish. A "
      "variant or finalist whose workers went silent past --lease three times, or that a "
      "worker could not read, is recorded lost (invalid; a lost finalist's next best is "
      "tested in its place). A worker whose child reports no GPU, nvcc or torch, or is "
      "killed by a signal, exits 4, and its claim goes to another after the lease (locally, "
      "such a child ends the run with exit 4: not the variant's doing; --resume judges it "
      "again). The run prints the queue's counts every "
      "30 s and writes queue/stop when done; --resume (with the same --backend) waits for "
      "items pending, claimed or done and never queues one twice. slurm submits "
      "queue/worker.sbatch as a job array (sbatch --array=0-<jobs-1> --gres=gpu:1, logs in "
      "queue/slurm/), cancels it at the end, and on --resume keeps an array that still has "
      "tasks.\n"
      "Exit codes: 0 done (also when some variants were invalid), 1 the defaults failed "
      "(nothing to compare against, also when they were lost in the queue), 2 bad usage, "
      "kbuild.toml or --resume folder, 4 no GPU (after the defaults' build, so compile errors "
      "show on any machine), no nvcc or no torch (--backend slurm: sbatch missing or "
      "refusing), 130/143 stopped by Ctrl-C/SIGTERM (what finished is kept and ranked).");
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunTuneCommand(global, *flags); };
  });
}

}  // namespace kb
