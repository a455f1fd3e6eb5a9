#include "core/queue_backend.h"

#include <fmt/format.h>

#include "core/message_text.h"
#include "core/shell_quote.h"
#include "core/work_queue.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

using Progress = std::function<void(const std::string&)>;

// --backend slurm: one array of workers, submitted unless a resumed run's array still has
// tasks waiting or running (queue/slurm-job.txt, or slurm-build-job.txt, names it). Its job id.
Expected<std::string> EnsureWorkerArray(FileSystem& fs, ProcessRunner& runner,
                                        const SlurmOptions& slurm, const fs::path& exe,
                                        const fs::path& queue_dir, const Progress& progress) {
  const fs::path job_file = queue_dir / WorkerJobFileName(slurm.role);
  if (fs.KindOf(job_file) == FileKind::kRegular) {
    auto text = fs.ReadAtMost(job_file, 256);
    std::string id = text ? OneLine(*text) : "";
    id.erase(id.find_last_not_of(' ') + 1);  // OneLine keeps the newline as a space
    if (!id.empty()) {
      auto state = QueryWorkerArray(runner, id);
      if (state && state->pending + state->running > 0) {
        progress(fmt::format("Slurm array {} still has {} waiting, {} running: kept", id,
                             state->pending, state->running));
        return id;
      }
    }
  }
  auto id = SubmitWorkerArray(fs, runner, slurm, exe, queue_dir);
  if (!id) return id.error();
  if (Status s = fs.Write(job_file, *id + "\n"); !s) return s.error();
  const std::string workers = slurm.role == "all" ? "workers" : slurm.role + " workers";
  progress(fmt::format("submitted Slurm array {} ({} {}, {})", *id, slurm.tasks, workers,
                       slurm.gres.empty() ? std::string("no GPU") : "gres " + slurm.gres));
  return id;
}

// The queue's counts (and the Slurm arrays'), one line every `seconds`. Its own WorkQueue:
// the run's threads use theirs.
std::unique_ptr<PeriodicThread> ProgressLines(FileSystem& fs, ProcessRunner& runner,
                                              const fs::path& queue_dir,
                                              std::vector<std::string> job_ids, Progress progress,
                                              double seconds) {
  return std::make_unique<PeriodicThread>(
      seconds, PeriodicThread::First::kAfterOnePeriod,
      [queue = std::make_shared<WorkQueue>(fs, queue_dir), &runner, job_ids = std::move(job_ids),
       progress = std::move(progress)] {
        auto counts = queue->Counts();
        if (!counts) return;
        // building: claimed from pending/ (by a --role all worker: the whole evaluation).
        std::string line = fmt::format(
            "queue: {} pending, {} building, {} built, {} running, {} done", counts->pending,
            counts->claimed, counts->built, counts->running, counts->done);
        for (const std::string& job_id : job_ids) {
          if (auto slurm = QueryWorkerArray(runner, job_id)) {
            line += fmt::format("; Slurm array {}: {} waiting, {} running", job_id, slurm->pending,
                                slurm->running);
          }
        }
        progress(line);
      });
}

}  // namespace

Expected<std::unique_ptr<QueueBackend>> QueueBackend::Start(FileSystem& fs, ProcessRunner& runner,
                                                            const QueueBackendOptions& options,
                                                            const fs::path& queue_dir,
                                                            const ProjectSnapshot& snapshot,
                                                            Progress progress) {
  if (Status s = WriteQueueSetup(fs, queue_dir, options.setup, snapshot); !s) return s.error();
  if (Status s = WorkQueue(fs, queue_dir).ClearStop(); !s) return s.error();
  std::unique_ptr<QueueBackend> backend(new QueueBackend(fs, runner, queue_dir));
  if (options.slurm) {
    const fs::path worker_exe =
        options.worker_kbuild.empty() ? options.kbuild_exe : options.worker_kbuild;
    // The build array first: its workers' items feed the GPU array's.
    if (options.build_array) {
      auto id =
          EnsureWorkerArray(fs, runner, *options.build_array, worker_exe, queue_dir, progress);
      if (!id) return id.error();
      backend->build_job_id_ = *id;
    }
    auto id = EnsureWorkerArray(fs, runner, options.array, worker_exe, queue_dir, progress);
    if (!id) {
      backend->Finish();  // cancels the build array submitted above
      return id.error();
    }
    backend->job_id_ = *id;
  } else {
    progress(fmt::format(
        "queue {}: start up to {} workers, one per GPU, on hosts that see it: {} worker "
        "--queue {}",
        queue_dir.string(), options.array.tasks, ShellWord(options.kbuild_exe.string()),
        ShellWord(queue_dir.string())));
  }
  std::vector<std::string> job_ids;
  for (const std::string* id : {&backend->build_job_id_, &backend->job_id_}) {
    if (!id->empty()) job_ids.push_back(*id);
  }
  backend->progress_ = ProgressLines(fs, runner, queue_dir, std::move(job_ids), std::move(progress),
                                     options.progress_seconds);
  return backend;
}

void QueueBackend::Finish() {
  if (finished_) return;
  finished_ = true;
  progress_.reset();
  // The workers end at queue/stop; tasks of the arrays that never started are cancelled.
  (void)WorkQueue(fs_, queue_dir_).RequestStop();
  for (const std::string* id : {&build_job_id_, &job_id_}) {
    if (!id->empty()) (void)CancelWorkerArray(runner_, *id);
  }
}

}  // namespace kb
