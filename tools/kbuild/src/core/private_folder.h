// Folders kbuild names itself in a shared temp directory (a worker's scratch,
// the stage root): another user of the machine could make the name first, as
// a link to their files or as a folder they control, and see or steer what
// kbuild builds there. Such a folder must be this user's own.
#pragma once

#include <filesystem>

#include "core/error.h"

namespace kb {

// Makes `dir` (mode 0700, its parents as needed), or accepts it when it
// already is a real folder (not a symlink) owned by this user. Exit 2
// otherwise, naming it; `hint` says how to choose another.
Status EnsurePrivateFolder(const std::filesystem::path& dir, const std::string& hint);

}  // namespace kb
