// Where kbuild's data lives: templates/, build.toml.in, tools/harness/ and the
// skill pack. KBUILD_HOME (env) wins, so an installed binary can point at a
// copy of the tree; otherwise the source tree kbuild was built from.
#pragma once

#include <filesystem>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// KBUILD_HOME if set and non-empty, else the compile-time KBUILD_SOURCE_ROOT.
std::filesystem::path KbuildHome();

// KbuildHome(), checked to hold `templates/` and `build.toml.in`; an
// environment error (exit 4) naming the folder and how to fix it otherwise.
Expected<std::filesystem::path> FindKbuildHome(const FileSystem& fs);

}  // namespace kb
