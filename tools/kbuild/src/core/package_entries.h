// What `kbuild package` may copy: regular files reached without passing a
// symlink. The project is hostile input; a link may lead anywhere (~/.ssh),
// and kbuild would upload what it points at, so a link is an error naming it,
// never followed and never silently skipped. Python caches are left out.
#pragma once

#include <filesystem>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// Exit 2 naming root/relative: "refusing to package a symbolic link" (or a
// FIFO, socket or device).
Error UnpackableEntryError(const std::filesystem::path& where, FileKind kind);

// What root/relative is, or an error (exit 2) for a path that leaves root or
// passes through or ends at a symlink, or ends at a FIFO or device.
Expected<FileKind> PackableKind(const FileSystem& fs, const std::filesystem::path& root,
                                const std::filesystem::path& relative);

// The regular files below root/relative_dir as paths relative to root, sorted,
// without __pycache__ and *.pyc; an error for any link or special entry there.
Expected<std::vector<std::filesystem::path>> PackableFilesBelow(
    const FileSystem& fs, const std::filesystem::path& root,
    const std::filesystem::path& relative_dir);

}  // namespace kb
