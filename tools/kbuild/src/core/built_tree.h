// The built tree a `kbuild worker --role build` hands to a `--role gpu` worker on another host
// (work_queue.h's built/ state, docs/scale-out.md): the item's project copy with its build/
// folder, copied into the queue folder at items/<id>/<builder>/ and back out, files with their
// permissions and modification times, to the same absolute path on the GPU host. A build
// folder moved to another path is configured and compiled again (kbuild build says "build/cmake
// was configured in another folder"); at its own path, with its times kept, the GPU steps'
// children find every binary up to date and compile nothing.
//
// items/ is written by other hosts: the tree must be a real folder (no link on the way), hold
// only regular files and folders (a link or special file refuses the whole tree), and at most
// kMaxBuiltTreeFiles files.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/queue_worker.h"
#include "core/work_queue.h"

namespace kb {

inline constexpr std::size_t kMaxBuiltTreeFiles = 50000;
inline constexpr const char* kDefaultStageRoot = "/tmp/kbuild-stage";

// What a worker's readers need for the two stages.
struct StagedWorkSetup {
  std::filesystem::path queue_dir;
  std::filesystem::path stage_root = kDefaultStageRoot;  // kbuild worker --stage-dir
  std::string worker;                                    // this worker's queue name

  std::filesystem::path CopyOf(const std::string& id) const;  // StagedCopyDir
};

// <stage_root>/<12 hex digits of the queue folder's path>/<id>/project: the same on every
// host whose workers share --stage-dir and see the queue at the same path.
std::filesystem::path StagedCopyDir(const std::filesystem::path& stage_root,
                                    const std::filesystem::path& queue_dir, const std::string& id);

// Copies `copy` to items/<id>/<worker>/ (anything there before is removed first) and returns
// the build record's keys that say where: {"builder": worker, "copy": copy}.
Expected<nlohmann::json> PublishBuiltTree(FileSystem& fs, WorkQueue& queue, const std::string& id,
                                          const std::string& worker,
                                          const std::filesystem::path& copy);

// Replaces `copy` with the tree `built` (a build record) names. Nothing on success; the
// problem (the item is then lost with it) when the record or the tree cannot be used, e.g. a
// tree built at another path than `copy` (the build would run again: give both roles the
// same --stage-dir). An error only when `copy` cannot be written.
Expected<std::optional<std::string>> FetchBuiltTree(FileSystem& fs, WorkQueue& queue,
                                                    const std::string& id,
                                                    const nlohmann::json& built,
                                                    const std::filesystem::path& copy);

// The build stage's end for a built item: its tree published, `extra` (an object: what the GPU
// stage needs to know of the build) added to the build record, the node's copy removed.
Expected<WorkResult> BuiltWorkResult(FileSystem& fs, const StagedWorkSetup& setup,
                                     const std::string& id, const nlohmann::json& extra);

// The GPU stage's start: the built tree fetched into setup.CopyOf(id); nothing when it is
// there, else the item's record, lost with the problem.
Expected<std::optional<WorkResult>> FetchOrLose(FileSystem& fs, const StagedWorkSetup& setup,
                                                const ClaimedWork& work);

}  // namespace kb
