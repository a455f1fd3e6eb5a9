// --backend queue or slurm, the run's side around its evaluator (kbuild optimize and kbuild
// tune): writes the queue's config.json and project/ (queue_setup.h), clears a resumed run's
// stop file, then either submits the Slurm worker array (slurm_jobs.h), or with a build array
// the CPU array of build workers and the GPU array of gpu workers (a resumed run keeps an
// array that still has tasks), or says how to start workers (queue), prints the queue's counts
// (and the arrays') every `progress_seconds`, and at the end writes queue/stop, so the workers
// exit, and cancels the arrays' tasks that never started.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/periodic_thread.h"
#include "core/process.h"
#include "core/queue_setup.h"
#include "core/slurm_jobs.h"
#include "core/tune_workspace.h"

namespace kb {

struct QueueBackendOptions {
  bool slurm = false;                       // submit the workers as a job array
  SlurmOptions array;                       // tasks: workers at once (queue: the message says so)
  std::optional<SlurmOptions> build_array;  // slurm: --role build workers on CPU nodes
  std::filesystem::path kbuild_exe;         // the running kbuild, named in the queue's message
  std::filesystem::path worker_kbuild;      // slurm: what the array's tasks run ("" = kbuild_exe)
  QueueSetup setup;
  double progress_seconds = 30;
};

class QueueBackend {
 public:
  // Everything above up to the progress lines, which start at once. `progress` gets one line
  // per event, from this thread and the progress thread.
  static Expected<std::unique_ptr<QueueBackend>> Start(
      FileSystem& fs, ProcessRunner& runner, const QueueBackendOptions& options,
      const std::filesystem::path& queue_dir, const ProjectSnapshot& snapshot,
      std::function<void(const std::string&)> progress);
  ~QueueBackend() { Finish(); }
  QueueBackend(const QueueBackend&) = delete;
  QueueBackend& operator=(const QueueBackend&) = delete;

  // Ends the progress lines, writes queue/stop and cancels the arrays; once.
  void Finish();
  // The Slurm array's job id (the GPU array's when there is a build array); "" for queue.
  const std::string& job_id() const { return job_id_; }
  // The build array's job id; "" without one.
  const std::string& build_job_id() const { return build_job_id_; }

 private:
  QueueBackend(FileSystem& fs, ProcessRunner& runner, std::filesystem::path queue_dir)
      : fs_(fs), runner_(runner), queue_dir_(std::move(queue_dir)) {}

  FileSystem& fs_;
  ProcessRunner& runner_;
  std::filesystem::path queue_dir_;
  std::string job_id_, build_job_id_;
  std::unique_ptr<PeriodicThread> progress_;
  bool finished_ = false;
};

}  // namespace kb
