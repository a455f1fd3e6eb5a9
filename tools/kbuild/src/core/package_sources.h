// The project files a Kernel Hub package carries beside build/: build.toml
// (and kbuild.toml), every src and include path build.toml names, the Python
// package torch-ext/<python_name>/, and tests/ and benchmarks/ so users and
// reviewers can rerun them. Chosen from build.toml, never by globbing the
// project, so nothing private rides along.
#pragma once

#include <filesystem>
#include <vector>

#include "core/config.h"
#include "core/error.h"
#include "core/fs.h"

namespace kb {

// Paths relative to config.root, sorted and unique. Exit 2 for a listed file
// or folder that is missing, a symlink anywhere on the way or inside a listed
// folder, or a FIFO or device.
Expected<std::vector<std::filesystem::path>> PackageSourceFiles(const FileSystem& fs,
                                                                const ProjectConfig& config);

}  // namespace kb
