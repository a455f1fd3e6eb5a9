// kbuild worker: evaluates the items of a `kbuild optimize` or `kbuild tune` run started with
// --backend queue|slurm from its queue folder (core/queue_worker.h): optimize's candidates
// (core/queue_evaluator.h) and tune's variants (core/tune_queue.h), on this host's GPU, until
// the run ends.
#include <fmt/format.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "commands/command.h"
#include "core/kbuild_home.h"
#include "core/private_folder.h"
#include "core/queue_evaluator.h"
#include "core/queue_setup.h"
#include "core/report.h"
#include "core/stop_signal.h"
#include "core/tune_queue.h"

namespace kb {

namespace {

namespace fs = std::filesystem;

struct WorkerFlags {
  std::string queue;
  std::string name;
  std::string scratch;
  std::string child_kbuild;
  std::string role = "all";
  std::string stage_dir = kDefaultStageRoot;
  double idle_exit = 300;
  bool json = false;
};

// "<host>-<pid>" with every character a queue name may not hold turned into '-'.
std::string DefaultWorkerName() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::string name = std::string(host[0] ? host : "worker") + "-" + std::to_string(getpid());
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '-';
  }
  return name.substr(0, 100);
}

int RunWorkerCommand(const WorkerFlags& flags) {
  Report report("worker", flags.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  const fs::path queue_dir = fs::absolute(flags.queue).lexically_normal();
  auto setup = ReadQueueSetup(fs, queue_dir);
  if (!setup) return report.Fail(setup.error());
  auto snapshot = SnapshotProject(fs, QueueProjectDir(queue_dir));
  if (!snapshot) return report.Fail(snapshot.error());
  const std::string name = flags.name.empty() ? DefaultWorkerName() : flags.name;
  if (Status ok = CheckQueueName(name, "worker"); !ok) return report.Fail(ok.error());
  // The candidate's copy and its build: node-local scratch, not the shared folder.
  const fs::path scratch = flags.scratch.empty() ? fs::path(GetEnv("TMPDIR").value_or("/tmp")) /
                                                       ("kbuild-worker-" + name)
                                                 : fs::absolute(flags.scratch);
  // The default names lie in a shared /tmp, where anyone may make them first.
  if (flags.scratch.empty()) {
    if (Status ok = EnsurePrivateFolder(scratch, "pass --scratch with a folder of yours"); !ok) {
      return report.Fail(ok.error());
    }
  }
  if (flags.stage_dir == kDefaultStageRoot) {
    if (Status ok = EnsurePrivateFolder(kDefaultStageRoot,
                                        "pass --stage-dir with a folder of "
                                        "yours (the same for every role)");
        !ok) {
      return report.Fail(ok.error());
    }
  }

  ChildEvaluatorSetup child;
  child.run_dir = scratch;
  child.kbuild_exe =
      flags.child_kbuild.empty() ? RunningExecutable() : fs::absolute(flags.child_kbuild);
  child.snapshot = &*snapshot;
  child.build_timeout_seconds = child.test_timeout_seconds = child.bench_timeout_seconds =
      child.profile_timeout_seconds = setup->child_timeout;
  child.bench_filter = setup->bench_filter;
  ChildKbuildEvaluator evaluator(fs, runner, child);
  StagedWorkSetup staged{queue_dir, fs::absolute(flags.stage_dir).lexically_normal(), name};
  TuneWorkerSetup tune;
  tune.run_dir = queue_dir.parent_path();
  tune.copy_dir = scratch / "tune" / "project";
  tune.kbuild_exe = child.kbuild_exe;
  tune.snapshot = &*snapshot;
  tune.staged = staged;
  const std::map<std::string, WorkReader> readers = {
      {kCandidateWorkKind, CandidateWorkReader(evaluator, queue_dir.parent_path(), fs, staged)},
      {kTuneWorkKind, TuneWorkReader(fs, runner, tune)}};

  QueueWorkerOptions options;
  options.name = name;
  options.role = flags.role == "build" ? WorkerRole::kBuild
                 : flags.role == "gpu" ? WorkerRole::kGpu
                                       : WorkerRole::kAll;
  options.idle_exit_seconds = flags.idle_exit;
  options.heartbeat_seconds = setup->lease_seconds / 3;
  options.progress = [&report, &name](const std::string& line) {
    report.Progress("worker " + name + ": " + line);
  };
  report.Progress(fmt::format("worker {} ({}) on {} (scratch {}, stage copies {})", name,
                              flags.role, queue_dir.string(), scratch.string(),
                              staged.stage_root.string()));
  auto summary = RunQueueWorker(fs, queue_dir, readers, options, RealQueueClock());
  if (!summary) return report.Fail(summary.error());
  report.Line(fmt::format("worker {}: {} evaluated, {} built, {} unreadable; ended: {}", name,
                          summary->evaluated, summary->built, summary->malformed,
                          summary->why_ended));
  auto& data = report.data();
  data["worker"] = name;
  data["queue"] = queue_dir.string();
  data["role"] = flags.role;
  data["evaluated"] = summary->evaluated;
  data["built"] = summary->built;
  data["malformed"] = summary->malformed;
  data["ended"] = summary->why_ended;
  return report.Finish(ExitCode::kOk);
}

}  // namespace

void AddWorkerCommand(CLI::App& app, const GlobalOptions&, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "worker",
      "Evaluates the candidates of a kbuild optimize run, or the variants of a kbuild tune "
      "run, started with --backend queue or slurm: claims them from the run's queue folder one "
      "at a time, builds, tests and benchmarks each in node-local scratch on this host's GPU "
      "(CUDA_VISIBLE_DEVICES as given), writes the result back, and ends when the run ends. "
      "Start one per GPU on any host that sees the folder (--backend slurm starts them as a "
      "job array).");
  auto flags = std::make_shared<WorkerFlags>();
  sub->add_option("--queue", flags->queue,
                  "The run's queue folder: results/optimize-<timestamp>/queue or "
                  "results/tune-<timestamp>/queue")
      ->required();
  sub->add_option("--name", flags->name,
                  "This worker's name in the queue: letters, digits, - and _ (default: "
                  "<host>-<pid>; Slurm tasks: slurm-<job>-<task>)");
  sub->add_option("--scratch", flags->scratch,
                  "Where the candidates' and variants' project copies are built (default: "
                  "$TMPDIR/kbuild-worker-<name>, else /tmp/...)");
  sub->add_option("--child-kbuild", flags->child_kbuild,
                  "The kbuild that builds, tests and benchmarks each candidate or variant "
                  "(default: this "
                  "one), e.g. a wrapper script that loads the cluster's CUDA module first");
  sub->add_option("--role", flags->role,
                  "all (default): build, test and benchmark each item here, and take the GPU "
                  "steps of items a build worker built; build: only build (CPU nodes, no GPU "
                  "needed): a compile error is the item's result, a built item goes to the "
                  "queue's built/ with its copy and build/ folder in items/<id>/; gpu: only "
                  "test and benchmark built items, in their copy as built (nothing compiles)")
      ->check(CLI::IsMember({"all", "build", "gpu"}));
  sub->add_option("--stage-dir", flags->stage_dir,
                  "build and gpu roles: where an item's copy is built and, on the GPU host, "
                  "placed again: <stage-dir>/<queue hash>/<id>/project, the same path on "
                  "every host, since a build folder moved elsewhere compiles again; give both "
                  "roles the same value (default: /tmp/kbuild-stage)");
  sub->add_option("--idle-exit", flags->idle_exit,
                  "Seconds with nothing to claim after which the worker ends (default: 300)")
      ->check(kPositiveNumber);
  AddJsonFlag(*sub, flags->json);
  sub->footer(
      "Each candidate: the project copy the run wrote (queue/project/) with the candidate's "
      "files and macro values, then kbuild build, test (full) and bench --no-baselines, each "
      "with the run's --child-timeout; logs and the children's documents go to the run's "
      "attempts/<id>/. Each tune variant: what kbuild tune does for one variant (kbuild "
      "build, test and bench --build-only, the tests before its benchmark, bench "
      "--no-baselines; or a finalist's full test), with the --define values and settings its "
      "payload carries and no time limit, in one copy of queue/project/ under the scratch "
      "folder; the children's documents go to the run's variants/<id>/. The worker beats a "
      "heartbeat (queue/workers/<name>.json) every third of the run's lease; a worker silent "
      "past the lease loses its claim to another, and the run records the item lost after two "
      "such retries; a payload it cannot read is recorded lost with the reason.\n"
      "Roles: --role build workers on CPU nodes and --role gpu workers on GPU nodes split each "
      "item: the build worker runs kbuild build, test --build-only and bench --build-only "
      "(tune: the variant's build phase) in <stage-dir>/<queue hash>/<id>/project, then copies "
      "that copy with its build/ folder (permissions and times kept) to the queue's "
      "items/<id>/<worker>/ and moves the item to built/; a gpu worker copies it back to the "
      "same path on its host and runs only kbuild test and bench, which find every binary up "
      "to date. Both stages hold leases and beat heartbeats; a silent build worker's item goes "
      "back to pending/, a silent gpu worker's to built/, each stage with its own two retries. "
      "The test and bench binaries link the harness library from KBUILD_CACHE_DIR: share that "
      "folder between the roles (same path), or each GPU host builds it once and relinks. It "
      "ends when queue/stop appears "
      "(the run writes it when done), after --idle-exit seconds with nothing pending, or on "
      "Ctrl-C (the claim then goes back after the lease). An optimize candidate's child killed "
      "by a signal, or a test or bench child that finds no usable GPU, is this worker's failure, "
      "not the candidate's: the worker ends with exit 4 and its claim goes back after the lease "
      "to another worker.\n"
      "Exit codes: 0 ended, 2 not a queue folder, 4 cannot write the queue, a child reports "
      "no GPU, nvcc or torch, or a child was killed, 130/143 stopped.");
  sub->callback(
      [&invocation, flags] { invocation.run = [flags] { return RunWorkerCommand(*flags); }; });
}

}  // namespace kb
