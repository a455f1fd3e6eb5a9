// Where kbuild reads its resources and writes its output: the project's
// build/ tree (docs/CONTRACTS.md "Build output"), text resources and the
// per-machine cache.
#pragma once

#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

struct BuildPaths {
  std::filesystem::path project;            // the project root
  std::filesystem::path build;              // project/build
  std::filesystem::path cmake;              // build/cmake: generated CMake project + Ninja tree
  std::filesystem::path generated_include;  // build/cmake/include: registration.h
  std::filesystem::path logs;               // build/logs
  std::filesystem::path build_log;          // build/logs/build.log
  std::filesystem::path torch_cache;        // build/torch-env.json
  std::filesystem::path cmake_key;          // build/cmake/kbuild-key.json

  std::filesystem::path Variant(const std::string& variant_name) const {
    return build / variant_name;
  }
};

BuildPaths MakeBuildPaths(const std::filesystem::path& project_dir);

// A text resource kbuild renders (registration.h, _ops.py.in, gpu_probe.cu):
// <KbuildHome()>/tools/kbuild/resources/<name> (see kbuild_home.h).
std::filesystem::path ResourcePath(const std::string& name);

// KBUILD_CACHE_DIR, else $XDG_CACHE_HOME/kbuild, else ~/.cache/kbuild, else
// (no HOME) <temp>/kbuild-cache-<uid>, which must be this user's own folder:
// another user could make that name first and plant the harness library
// kbuild links (EnsurePrivateFolder).
Expected<std::filesystem::path> CacheDir();

// Writes only when the content differs, so Ninja and Python see unchanged
// files as unchanged. `changed` (optional) says whether it wrote.
Status WriteIfChanged(FileSystem& fs, const std::filesystem::path& path, const std::string& content,
                      bool* changed = nullptr);

}  // namespace kb
