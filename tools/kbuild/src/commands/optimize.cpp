// kbuild optimize: the agentic loop. A proposer (any agent's command line, or
// the builtin one over kbuild.toml [tune]) writes candidates; each is built,
// run through the full test suite and benchmarked in a copy of the project;
// failures go back for repair; K islands evolve their own best. Writes
// results/optimize-<timestamp>/ (optimize_run.h).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <system_error>

#include "commands/backend_flags.h"
#include "commands/command.h"
#include "core/config.h"
#include "core/harness_targets.h"
#include "core/kbuild_home.h"
#include "core/message_text.h"
#include "core/optimize_run.h"
#include "core/queue_evaluator.h"
#include "core/report.h"
#include "core/run_throughput.h"
#include "core/tune_child.h"
#include "core/tune_space.h"
#include "core/tune_workspace.h"

namespace kb {

namespace {

namespace fs = std::filesystem;

constexpr const char* kReferences[] = {"kernel-patterns.md", "h100-h200.md", "harness.md"};

struct OptimizeFlags {
  std::string proposer;
  std::string description;
  int budget = 20;
  double time = 0;
  int islands = 2;
  int repair = 2;
  int migrate_every = 10;
  int restart_after = 12;
  double proposer_timeout = 1800;
  double child_timeout = 900;
  std::string filter;
  std::string resume;
  BackendFlags backend;
  bool json = false;
};

// gpu.md: what `kbuild doctor --json` says about this machine ("" when it says nothing).
std::string GpuText(ProcessRunner& runner, const fs::path& exe) {
  RunOptions options;
  options.timeout_seconds = 120;
  const ProcessResult r = runner.Run({exe.string(), "doctor", "--json"}, options);
  const nlohmann::json doc = ChildDocument(r.output);
  if (doc.is_null()) return "";
  return "# This machine (kbuild doctor --json)\n\n```json\n" + doc.dump(2) + "\n```\n";
}

nlohmann::json AttemptSummaryJson(const Attempt& a) {
  return {{"id", a.candidate.id},
          {"island", a.candidate.island},
          {"parent", a.candidate.parent},
          {"verdict", VerdictWord(a.verdict)},
          {"score", a.score},
          {"first_error", a.first_error}};
}

int RunOptimizeCommand(const GlobalOptions& global, const OptimizeFlags& flags) {
  Report report("optimize", flags.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  fs::path project = fs::absolute(global.project_dir).lexically_normal();
  if (project.filename().empty()) project = project.parent_path();
  auto config = LoadProjectConfig(fs, project);
  if (!config) return report.Fail(config.error());

  OptimizeOptions options;
  options.builtin = flags.proposer == "builtin";
  options.profile = !options.builtin;
  options.budget = flags.budget;
  options.time_limit_seconds = flags.time;
  options.islands = {flags.islands, flags.repair, flags.migrate_every, flags.restart_after};
  const bool queued = flags.backend.Queued();
  if (queued) {
    // One evaluation per island at once, each on whichever worker claims it.
    const int jobs = std::min(flags.backend.jobs.value_or(flags.islands), flags.islands);
    for (int i = 0; i < jobs; ++i) options.worker_devices.push_back("queue-" + std::to_string(i));
  } else {
    // One worker per GPU of the host (or of CUDA_VISIBLE_DEVICES), at most one per island.
    options.worker_devices = WorkerDevices(GetEnv("CUDA_VISIBLE_DEVICES"), CountGpus(runner));
    if (options.worker_devices.size() > static_cast<size_t>(flags.islands)) {
      options.worker_devices.resize(static_cast<size_t>(flags.islands));
    }
    options.baseline_on_each_worker = options.worker_devices.size() > 1;
  }
  const SlurmOptions slurm =
      WorkerArrayOptions(flags.backend, static_cast<int>(options.worker_devices.size()));
  if (Status ok = CheckBackendFlags(flags.backend, slurm); !ok) return report.Fail(ok.error());
  options.task.project_dir = project;
  options.task.op = config->name;
  options.task.description = flags.description;
  for (const auto& kernel : config->kernels) {
    for (const auto& src : kernel.src)
      options.task.sources.push_back(fs::path(src).lexically_normal());
  }
  if (config->torch) {
    for (const auto& src : config->torch->src)
      options.task.sources.push_back(fs::path(src).lexically_normal());
  }
  for (const char* name : kReferences)
    options.task.references.push_back(KbuildHome() / "references" / name);

  auto run_dir = flags.resume.empty() ? NewOptimizeRunFolder(fs, project, FileTimestamp())
                                      : ResumeOptimizeRunFolder(fs, project, flags.resume);
  if (!run_dir) return report.Fail(run_dir.error());
  options.run_dir = *run_dir;
  auto snapshot = SnapshotProject(fs, project);
  if (!snapshot) return report.Fail(snapshot.error());
  if (!snapshot->skipped_links.empty()) {
    report.Warning(fmt::format("{} symlink(s) left out of the copies, e.g. {}",
                               snapshot->skipped_links.size(),
                               snapshot->skipped_links.front().string()));
  }
  const fs::path exe = RunningExecutable();
  // Queued: the GPUs are the workers', not this host's (a login node may have none).
  if (!queued) options.task.gpu_text = GpuText(runner, exe);

  std::unique_ptr<Proposer> proposer;
  if (options.builtin) {
    TuneSpace space;
    if (fs.KindOf(project / "kbuild.toml") == FileKind::kRegular) {
      auto read = ReadTuneSpace(fs, project);
      if (!read) return report.Fail(read.error());
      space = std::move(*read);
    }
    std::vector<CandidateFile> sources;
    for (const auto& src : options.task.sources) {
      if (fs.KindOf(project / src) != FileKind::kRegular) continue;
      auto text = fs.ReadAtMost(project / src, kMaxProposedFileBytes);
      if (!text) return report.Fail(text.error());
      sources.push_back({src, std::move(*text)});
    }
    if (const std::string why = BuiltinNothingToDo(space, sources); !why.empty()) {
      return report.Fail(MakeError(ExitCode::kUsage, why,
                                   "declare the macros the kernel reads in kbuild.toml "
                                   "[tune.params] (see kbuild tune --help), or give --proposer "
                                   "a command"));
    }
    proposer = std::make_unique<BuiltinProposer>(fs, std::move(space), 0);
  } else {
    proposer = std::make_unique<CommandProposer>(fs, runner, flags.proposer, project,
                                                 flags.proposer_timeout);
  }
  ChildEvaluatorSetup setup;
  setup.run_dir = options.run_dir;
  setup.kbuild_exe = exe;
  setup.snapshot = &*snapshot;
  setup.build_timeout_seconds = setup.test_timeout_seconds = setup.bench_timeout_seconds =
      setup.profile_timeout_seconds = flags.child_timeout;
  setup.bench_filter = flags.filter;
  ChildKbuildEvaluator local(fs, runner, setup);
  options.progress = [&report](const std::string& line) { report.Progress(line); };

  std::unique_ptr<QueueBackend> backend;
  std::unique_ptr<QueueEvaluator> queue;
  if (queued) {
    options.profile = false;  // workers do not profile yet
    auto started = QueueBackend::Start(
        fs, runner, BackendOptions(flags.backend, slurm, exe, {flags.filter, flags.child_timeout}),
        options.run_dir / "queue", *snapshot, options.progress);
    if (!started) return report.Fail(started.error());
    backend = std::move(*started);
    queue = std::make_unique<QueueEvaluator>(
        fs, options.run_dir / "queue",
        QueueTimings{.poll_seconds = 2, .lease_seconds = flags.backend.LeaseSeconds()},
        RealQueueClock());
  }
  auto result = queue ? RunOptimize(fs, *proposer, *queue, options)
                      : RunOptimize(fs, *proposer, local, options);
  const std::string job_id = backend ? backend->job_id() : "";
  const std::string build_job_id = backend ? backend->build_job_id() : "";
  if (backend) backend->Finish();
  if (!result) return report.Fail(result.error());
  const OptimizeRunResult& r = *result;
  for (const auto& w : r.warnings) report.Warning(w);
  const OptimizeTotals& t = r.totals;
  report.Line(r.best_id.empty()
                  ? "no candidate passed"
                  : fmt::format("best: {} at {:.3f}x the baseline", r.best_id, r.best_score));
  report.Line(fmt::format("{} attempts ({} ok, {} repairs), {} now", t.attempts, t.ok, t.repairs,
                          r.attempted_now));
  const RunThroughput throughput{r.searched_now, r.search_seconds,
                                 std::max<int>(1, static_cast<int>(options.worker_devices.size()))};
  report.Line(ThroughputLine(throughput));
  if (t.with_cost > 0) {
    report.Line(fmt::format("cost: {:.0f} tokens, ${:.2f}, {:.0f} s (reported by {} attempts)",
                            t.cost.tokens, t.cost.usd, t.cost.seconds, t.with_cost));
  }
  if (!r.exhausted.empty()) report.Line("ended before the budget: " + r.exhausted);
  if (!r.gpu_baselines.empty()) {
    report.Line("the baseline on each GPU, against the run's: " +
                GpuBaselinesText(r.gpu_baselines));
  }
  for (const auto& f : r.worker_failures) report.Line("worker failed: " + WorkerFailureText(f));
  for (const auto& f : r.files) report.Line("wrote " + f.string());
  const std::string at = global.project_dir == "." ? "" : " -C " + global.project_dir.string();
  const std::string resume = "kbuild" + at + " optimize --proposer ... --resume " +
                             r.run_dir.lexically_relative(project).string();
  if (r.stopped || r.time_up) report.Line("to continue: " + resume);

  auto& data = report.data();
  data["run_dir"] = r.run_dir.string();
  data["backend"] = flags.backend.backend;
  if (!job_id.empty()) data["slurm_job"] = job_id;
  if (!build_job_id.empty()) data["slurm_build_job"] = build_job_id;
  data["best"] = {{"id", r.best_id}, {"score", r.best_score}};
  data["counts"] = {{"attempts", t.attempts},
                    {"ok", t.ok},
                    {"repairs", t.repairs},
                    {"attempted_now", r.attempted_now}};
  data["throughput"] = ThroughputJson(throughput);
  data["cost"] = {{"reported_by", t.with_cost},
                  {"tokens", t.cost.tokens},
                  {"usd", t.cost.usd},
                  {"seconds", t.cost.seconds}};
  data["seconds"] = {{"propose", t.propose_seconds},
                     {"build", t.build_seconds},
                     {"test", t.test_seconds},
                     {"bench", t.bench_seconds}};
  data["attempts"] = nlohmann::json::array();
  for (const auto& a : r.attempts) data["attempts"].push_back(AttemptSummaryJson(a));
  data["gpu_baselines"] = nlohmann::json::array();
  for (const auto& b : r.gpu_baselines) {
    data["gpu_baselines"].push_back(
        {{"worker", b.worker}, {"device", b.device}, {"vs_run", b.vs_run}, {"problem", b.problem}});
  }
  data["worker_failures"] = nlohmann::json::array();
  for (const auto& f : r.worker_failures) data["worker_failures"].push_back(WorkerFailureJson(f));
  data["stopped"] = r.stopped;
  data["time_up"] = r.time_up;
  data["exhausted"] = r.exhausted;
  data["resume"] = resume;
  data["files"] = nlohmann::json::array();
  for (const auto& f : r.files) data["files"].push_back(f.string());
  return report.Finish(ExitCode::kOk);
}

}  // namespace

void AddOptimizeCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "optimize",
      "The agentic loop: a proposer (any agent's command line, or the builtin one) writes "
      "candidate sources; each is built, run through the full test suite and benchmarked in a "
      "copy of the project; failures go back to the proposer for repair; several islands each "
      "evolve from their own best. Ranks by the geometric mean speedup over the project as it "
      "is. Writes results/optimize-<timestamp>/ with best/ ready to copy into the project.");
  auto flags = std::make_shared<OptimizeFlags>();
  sub->add_option("--proposer", flags->proposer,
                  "The command that writes a candidate, run with /bin/sh -c in the project "
                  "folder (it reads $KBUILD_OPTIMIZE_PROMPT and writes files under "
                  "$KBUILD_OPTIMIZE_OUT), or 'builtin': without a language model, each candidate "
                  "either moves the macro values over kbuild.toml [tune.params] or applies one "
                  "source transform to a kernel source (__restrict__ on the const pointer "
                  "parameters of a __global__ function, a minimum blocks per SM in its "
                  "__launch_bounds__, #pragma unroll on a loop with a constant trip count)")
      ->required();
  sub->add_option("--description", flags->description,
                  "What the op computes, for a blank project: the first prompt asks the "
                  "proposer to write the kernel from it");
  sub->add_option("--budget", flags->budget,
                  "Attempts besides the baseline, counted over resumes (default: 20)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--time", flags->time, "Seconds after which no new attempt starts")
      ->check(kPositiveNumber);
  sub->add_option("--islands", flags->islands, "Lineages evolving from their own best (default: 2)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--repair", flags->repair,
                  "Times a failed candidate goes back to the proposer with its error (default: 2)")
      ->check(CLI::Range(0, 100));
  sub->add_option("--migrate-every", flags->migrate_every,
                  "Attempts between migrations of the best island's best to the worst island "
                  "(default: 10; 0 never)")
      ->check(CLI::Range(0, 100000));
  sub->add_option("--restart-after", flags->restart_after,
                  "Attempts without improvement after which an island restarts from the baseline "
                  "(default: 12; 0 never)")
      ->check(CLI::Range(0, 100000));
  sub->add_option("--proposer-timeout", flags->proposer_timeout,
                  "Seconds a proposer may run per attempt (default: 1800)")
      ->check(kPositiveNumber);
  sub->add_option("--child-timeout", flags->child_timeout,
                  "Seconds each child kbuild build, test, bench and profile may run; past it "
                  "the candidate is timed_out (the profile: not profiled) (default: 900)")
      ->check(kPositiveNumber);
  sub->add_option("--filter", flags->filter,
                  "Benchmark and rank on the cases matching this regular expression (kbuild "
                  "bench --filter; default: every case)");
  sub->add_option("--resume", flags->resume,
                  "Continue an interrupted run: its folder results/optimize-<timestamp>; "
                  "recorded attempts are neither repeated nor lost, and a candidate saved but "
                  "not recorded is evaluated without asking the proposer again");
  AddBackendOptions(*sub, flags->backend, "candidate",
                    "queue, slurm: evaluations at once, at most --islands (default: --islands); "
                    "slurm: the array's tasks, one GPU each");
  AddJsonFlag(*sub, flags->json);
  sub->footer(
      "Each attempt: kbuild writes results/optimize-<t>/attempts/<id>/context/ (task.md, best/, "
      "history.md, errors.md, profile.md, gpu.md, references/, prompt.md), runs the proposer with "
      "KBUILD_OPTIMIZE_CONTEXT, KBUILD_OPTIMIZE_PROMPT, KBUILD_OPTIMIZE_OUT (an empty folder) and "
      "KBUILD_OPTIMIZE_COST (optional {\"tokens\", \"usd\", \"seconds\"} JSON, summed in the "
      "totals) set, and takes only regular files under OUT whose paths are the project's kernel "
      "or binding sources (build.toml src); anything else fails the attempt (proposer_failed). "
      "Then kbuild -C workers/<n>/project build, test (full) and bench --no-baselines (the "
      "candidate alone is timed), each --json "
      "with --child-timeout. With several GPUs (nvidia-smi -L, or the entries of "
      "CUDA_VISIBLE_DEVICES) one worker per GPU, at most --islands of them, evaluates one "
      "attempt of each island at once, its children seeing only its GPU; the attempts are "
      "proposed one after the other and recorded in order. The baseline is then timed on every "
      "GPU too, each candidate is scored against the baseline of the GPU that judged it, and "
      "the run says how far the GPUs agree (summary.md's GPUs, --json's gpu_baselines; past "
      "3% they are said to differ). A worker that fails rather than its "
      "candidate (a child killed by a signal, or its GPU unusable for tests or benchmarks: exit "
      "4) is retired for the rest of the run, recorded (workers.jsonl, summary.md), and its "
      "candidate judged again on another worker, at most twice more (then lost); with one GPU, "
      "or none left, the run ends with exit 4 and --resume judges the saved candidates again. "
      "The baseline and each island's new best "
      "are also profiled (kbuild "
      "profile --json --case <the first performance case>, same time limit) into the profile.md "
      "of the attempts that grow from them; not with --proposer builtin, which reads no context. "
      "Verdicts: ok, compile_error, test_failed, crashed, timed_out, "
      "rule_broken (the harness refused it: faster than physics, unwritten outputs, changed "
      "inputs), proposer_failed, lost (--backend queue or slurm: its workers went silent past "
      "the lease three times; local: its workers failed three times).\n"
      "--backend queue or slurm: the run writes results/optimize-<t>/queue/ (config.json, "
      "project/ as snapshotted, pending/, claimed/, done/, workers/) and waits for kbuild worker "
      "processes to evaluate its candidates (kbuild worker --help); it prints the queue's "
      "counts every 30 s, writes queue/stop when done, and nothing is profiled. slurm submits "
      "queue/worker.sbatch as an array (sbatch --array=0-<jobs-1> --gres=gpu:1, logs in "
      "queue/slurm/) and on --resume keeps an array that still has tasks.\n"
      "Output: history.jsonl (one line per attempt, appended as each ends), workers.jsonl (the "
      "workers that failed: worker, device, attempt, reason), summary.md, "
      "progress.svg (best speedup vs attempt per island), best/ (the best candidate's files, "
      "defines.txt for its macro values), and per attempt its context, output, logs and the "
      "children's build.json, test.json, bench.json (profile.md and profile.json when "
      "profiled). The proposer's command is the user's own and runs unsandboxed with the "
      "user's rights. Ctrl-C stops after ending the children; --resume continues. The run also "
      "ends before --budget when the builtin proposer has tried every valid point of the "
      "[tune] space and every source transform (it says so).\n"
      "Exit codes: 0 done (also when candidates failed), 2 bad usage, build.toml, kbuild.toml "
      "or --resume folder, 4 no GPU, nvcc or torch (or no worker left), 130/143 stopped by "
      "Ctrl-C/SIGTERM.");
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunOptimizeCommand(global, *flags); };
  });
}

}  // namespace kb
