// Queue workers as Slurm job arrays (docs/scale-out.md): kbuild writes a batch script that
// runs `kbuild worker --queue DIR` and submits it with sbatch, one array task per concurrent
// evaluation, each with one GPU; with a build partition, a second array of `--role build`
// workers without a GPU compiles and the GPU array's run `--role gpu`. squeue says how many
// tasks still wait or run. Every Slurm
// call goes through ProcessRunner as an argv (no shell); the only shell text is the batch
// script, whose paths are quoted.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"

namespace kb {

struct SlurmOptions {
  int tasks = 4;               // array tasks: workers at once (--array=0-(tasks-1))
  std::string partition;       // "" = the cluster's default
  std::string account;         // "" = the user's default
  std::string time_limit;      // per task, Slurm's format (e.g. 2:00:00); "" = the partition's
  std::string gres = "gpu:1";  // "" = no --gres (the build array)
  std::string role = "all";    // the workers' --role: all, build or gpu
};

// The array's files in the queue folder: its batch script and the file holding its job id.
// The all and gpu arrays: worker.sbatch and slurm-job.txt; build: worker-build.sbatch and
// slurm-build-job.txt.
std::string WorkerScriptName(const std::string& role);
std::string WorkerJobFileName(const std::string& role);

// Refuses values that Slurm would misread: partition and account letters, digits and _.-;
// time digits, ':' and '-'; tasks 1-10000; role all, build or gpu; gres empty only for build.
// Exit 2 with the reason.
Status CheckSlurmOptions(const SlurmOptions& options);

// The batch script (sh) that runs one worker: `exec KBUILD worker --queue QUEUE` (and
// `--role ROLE` unless all), its name from the job and task ids.
std::string WorkerBatchScript(const std::filesystem::path& kbuild_exe,
                              const std::filesystem::path& queue_dir,
                              const std::string& role = "all");

// sbatch's argv for the array (the script at queue/WorkerScriptName(role), logs in
// queue/slurm/).
std::vector<std::string> SbatchArgv(const SlurmOptions& options,
                                    const std::filesystem::path& queue_dir);

// Writes the script and submits the array; the job id. Exit 4 when sbatch is missing or
// refuses (its message in the error).
Expected<std::string> SubmitWorkerArray(FileSystem& fs, ProcessRunner& runner,
                                        const SlurmOptions& options,
                                        const std::filesystem::path& kbuild_exe,
                                        const std::filesystem::path& queue_dir);

struct SlurmArrayState {
  int pending = 0;  // PENDING, CONFIGURING, REQUEUED, ...
  int running = 0;  // RUNNING, COMPLETING
};

// squeue's view of the array's tasks still in the queue (finished ones are gone from it).
Expected<SlurmArrayState> QueryWorkerArray(ProcessRunner& runner, const std::string& job_id);

// scancel of the whole array (after the run, for tasks that never started).
Status CancelWorkerArray(ProcessRunner& runner, const std::string& job_id);

}  // namespace kb
