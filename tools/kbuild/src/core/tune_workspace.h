// Where a `kbuild tune` run works: its folder results/tune-<stamp>/ (new, or
// one an interrupted run left, for --resume), and a copy of the project per
// variant under <run>/variants/<id>/project/, so variants build in parallel,
// each in its own incremental build/ tree.
//
// --resume takes a path from the command line and the copy reads a project
// kbuild did not write: a resume folder must be a real folder directly below
// the project's results/ (no symlink on the way), and the copy takes regular
// files only (no symlink, nothing from build/, results/ or .git), bounded in
// count and size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

inline constexpr size_t kMaxTuneCopyFiles = 10000;
inline constexpr std::uintmax_t kMaxTuneCopyBytes = 256ull << 20;

inline constexpr const char* kTuneHistoryFile = "history.jsonl";

// A new run folder <project>/results/tune-<stamp> (with "-2", "-3", ... when
// taken); not created yet. Exit 2 when results/ is a symlink.
Expected<std::filesystem::path> NewTuneRunFolder(const FileSystem& fs,
                                                 const std::filesystem::path& project,
                                                 const std::string& stamp);

// The folder --resume names (relative paths are relative to the project),
// checked: a directory <project>/results/tune-*, neither it nor results/ a
// symlink, holding a regular history.jsonl. Exit 2 otherwise, saying which.
Expected<std::filesystem::path> ResumeTuneRunFolder(const FileSystem& fs,
                                                    const std::filesystem::path& project,
                                                    const std::filesystem::path& given);

// The project's files as they are now, read once and written into every copy.
struct ProjectSnapshot {
  std::vector<std::pair<std::filesystem::path, std::string>> files;  // relative path, content
  std::vector<std::filesystem::path> skipped_links;  // symlinks left out (a warning)
};

// Regular files below `project`, except build/, results/ and any .git.
// Exit 2 past kMaxTuneCopyFiles files or kMaxTuneCopyBytes in all.
Expected<ProjectSnapshot> SnapshotProject(const FileSystem& fs,
                                          const std::filesystem::path& project);

// Writes the snapshot into `copy` (only files whose content differs, so a
// resumed variant's build stays incremental).
Status WriteProjectCopy(FileSystem& fs, const ProjectSnapshot& snapshot,
                        const std::filesystem::path& copy);

}  // namespace kb
