// --backend local|queue|slurm and its companions, which kbuild optimize and kbuild tune share
// (core/queue_backend.h does the work): the options, their check before anything runs, and
// the run side's settings from them.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/queue_backend.h"
#include "core/slurm_jobs.h"

namespace kb {

inline constexpr double kDefaultLeaseSeconds = 120;

struct BackendFlags {
  std::string backend = "local";
  std::optional<int> jobs;
  std::optional<std::string> partition, account, slurm_time, worker_kbuild;
  std::optional<std::string> build_partition, build_time;
  std::optional<double> lease;
  bool Queued() const { return backend != "local"; }
  double LeaseSeconds() const { return lease.value_or(kDefaultLeaseSeconds); }
};

// `item` names what the workers evaluate ("candidate", "variant"); `jobs_help` says what --jobs
// means for the command and its default.
inline void AddBackendOptions(CLI::App& sub, BackendFlags& flags, const std::string& item,
                              const std::string& jobs_help) {
  sub.add_option("--backend", flags.backend,
                 "Where " + item +
                     "s are evaluated: local (this host's GPUs, default), queue (kbuild worker "
                     "processes started by you on any hosts that see the run's queue/ folder), "
                     "slurm (the same workers as one Slurm job array, submitted and cancelled by "
                     "this run)")
      ->check(CLI::IsMember({"local", "queue", "slurm"}));
  sub.add_option("--jobs", flags.jobs, jobs_help)->check(CLI::Range(1, 10000));
  sub.add_option("--partition", flags.partition, "slurm: sbatch --partition");
  sub.add_option("--account", flags.account, "slurm: sbatch --account");
  sub.add_option("--slurm-time", flags.slurm_time,
                 "slurm: each worker task's time limit, sbatch --time (e.g. 4:00:00)");
  sub.add_option("--build-partition", flags.build_partition,
                 "slurm: split each " + item +
                     " over two arrays: kbuild worker --role build tasks without a GPU on this "
                     "partition compile it, --role gpu tasks (--gres=gpu:1, --partition) only "
                     "test and benchmark the built copy; --jobs tasks each (default: one array of "
                     "--role all workers that do both)");
  sub.add_option("--build-time", flags.build_time,
                 "slurm, with --build-partition: each build task's time limit (default: "
                 "--slurm-time)");
  sub.add_option("--worker-kbuild", flags.worker_kbuild,
                 "slurm: the kbuild the array's tasks run as `kbuild worker` (default: this "
                 "one), e.g. a wrapper that loads the cluster's modules first");
  sub.add_option("--lease", flags.lease,
                 "queue, slurm: seconds without a worker's heartbeat after which its " + item +
                     " goes back to the queue; after two such retries it is recorded lost "
                     "(default: 120)")
      ->check(CLI::Range(10.0, 86400.0));
}

// The Slurm array: `tasks` workers, one GPU each; --role gpu when a build array compiles.
inline SlurmOptions WorkerArrayOptions(const BackendFlags& flags, int tasks) {
  SlurmOptions slurm;
  slurm.tasks = tasks;
  slurm.partition = flags.partition.value_or("");
  slurm.account = flags.account.value_or("");
  slurm.time_limit = flags.slurm_time.value_or("");
  if (flags.build_partition) slurm.role = "gpu";
  return slurm;
}

// With --build-partition, the CPU array of `kbuild worker --role build`: as many tasks as the
// GPU array, no GPU.
inline std::optional<SlurmOptions> BuildArrayOptions(const BackendFlags& flags,
                                                     const SlurmOptions& gpu_array) {
  if (!flags.build_partition) return std::nullopt;
  SlurmOptions build = gpu_array;
  build.role = "build";
  build.gres.clear();
  build.partition = *flags.build_partition;
  build.time_limit = flags.build_time.value_or(gpu_array.time_limit);
  return build;
}

// Exit 2 for a companion the backend does not use (it would be ignored silently) and for
// Slurm values Slurm would misread.
inline Status CheckBackendFlags(const BackendFlags& flags, const SlurmOptions& array) {
  auto unused = [](const char* option, const char* backends) {
    return Status(
        MakeError(ExitCode::kUsage, std::string(option) + " is for --backend " + backends + " only",
                  std::string("add --backend ") + backends + ", or leave " + option + " out"));
  };
  if (!flags.Queued() && flags.jobs) return unused("--jobs", "queue or slurm");
  if (!flags.Queued() && flags.lease) return unused("--lease", "queue or slurm");
  if (flags.backend != "slurm") {
    if (flags.partition) return unused("--partition", "slurm");
    if (flags.account) return unused("--account", "slurm");
    if (flags.slurm_time) return unused("--slurm-time", "slurm");
    if (flags.worker_kbuild) return unused("--worker-kbuild", "slurm");
    if (flags.build_partition) return unused("--build-partition", "slurm");
    if (flags.build_time) return unused("--build-time", "slurm");
    return {};
  }
  if (flags.build_time && !flags.build_partition) {
    return Status(MakeError(ExitCode::kUsage, "--build-time is for --build-partition only",
                            "add --build-partition, or use --slurm-time"));
  }
  if (flags.build_partition && flags.build_partition->empty()) {
    return Status(MakeError(ExitCode::kUsage, "--build-partition: a partition name",
                            "leave --build-partition out for one array of --role all workers"));
  }
  if (Status ok = CheckSlurmOptions(array); !ok) return ok;
  if (auto build = BuildArrayOptions(flags, array)) return CheckSlurmOptions(*build);
  return {};
}

// What QueueBackend::Start needs; `exe` is the running kbuild.
inline QueueBackendOptions BackendOptions(const BackendFlags& flags, const SlurmOptions& array,
                                          const std::filesystem::path& exe, QueueSetup setup) {
  QueueBackendOptions options;
  options.slurm = flags.backend == "slurm";
  options.array = array;
  options.build_array = BuildArrayOptions(flags, array);
  options.kbuild_exe = exe;
  if (flags.worker_kbuild) options.worker_kbuild = std::filesystem::absolute(*flags.worker_kbuild);
  options.setup = std::move(setup);
  options.setup.lease_seconds = flags.LeaseSeconds();
  return options;
}

}  // namespace kb
