// What a queue worker (kbuild worker) needs besides the queue: the run writes it once into
// the queue folder, every worker reads it. queue/config.json holds the evaluation settings of
// kbuild optimize's candidates (tune's variants carry theirs in each payload, tune_queue.h);
// queue/project/ the project as the run snapshotted it, so workers on any host evaluate
// candidates and variants over the same files even if the user edits the project meanwhile.
#pragma once

#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/tune_workspace.h"

namespace kb {

struct QueueSetup {
  std::string bench_filter;    // kbuild bench --filter ("" = every case)
  double child_timeout = 900;  // seconds per child kbuild build, test and bench (optimize's)
  double lease_seconds = 120;  // workers beat well within it (a third)
};

std::filesystem::path QueueProjectDir(const std::filesystem::path& queue_dir);

// Writes config.json and project/ (the snapshot) into `queue_dir`.
Status WriteQueueSetup(FileSystem& fs, const std::filesystem::path& queue_dir,
                       const QueueSetup& setup, const ProjectSnapshot& snapshot);

// config.json back; another host may have written it, so every field is checked (exit 2 with
// the reason when one is missing or out of range).
Expected<QueueSetup> ReadQueueSetup(const FileSystem& fs, const std::filesystem::path& queue_dir);

}  // namespace kb
