// Where `kbuild package` writes, and how it replaces an earlier package
// without ever leaving half of one: DIR must lie inside the project (kbuild
// never writes outside it) with no symlink on the way; everything is written
// into a fresh sibling folder, then renamed into place. An existing DIR is
// replaced only with --force and only when it holds the marker kbuild wrote,
// so a folder of the user's own is never deleted.
#pragma once

#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// The marker file at the top of every package kbuild writes.
inline constexpr const char* kPackageMarker = ".kbuild-package";

// `out` as a normal path relative to `project` ("dist/<name>" when empty).
// Exit 2 for an absolute path, one that leaves the project through '..', or
// the project folder itself.
Expected<std::filesystem::path> ResolvePackageDir(const std::string& out, const std::string& name);

// Whether writing project/relative is allowed: exit 2 for a symlink on the
// way or at DIR, a DIR that is not a folder, an existing DIR without --force,
// or one without the marker (even with --force). Returns whether DIR exists.
Expected<bool> CheckPackageDir(const FileSystem& fs, const std::filesystem::path& project,
                               const std::filesystem::path& relative, bool force);

// A fresh, empty staging folder beside project/relative (its name starts with
// '.' and ends in ".kbuild-staging-<pid>").
Expected<std::filesystem::path> MakeStagingDir(FileSystem& fs, const std::filesystem::path& project,
                                               const std::filesystem::path& relative);

// Moves `staging` to project/relative; an existing (marked) package there is
// moved aside first and deleted once the new one is in place.
Status PlaceStagedPackage(FileSystem& fs, const std::filesystem::path& staging,
                          const std::filesystem::path& project,
                          const std::filesystem::path& relative, bool replace);

}  // namespace kb
