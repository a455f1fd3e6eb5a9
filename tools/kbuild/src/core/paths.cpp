#include "core/paths.h"

#include <unistd.h>

#include <string>
#include <system_error>

#include "core/kbuild_home.h"
#include "core/private_folder.h"
#include "core/process.h"

namespace kb {

namespace fs = std::filesystem;

BuildPaths MakeBuildPaths(const fs::path& project_dir) {
  BuildPaths p;
  std::error_code ec;
  p.project = fs::absolute(project_dir, ec).lexically_normal();
  // "proj/." normalizes to "proj/": drop the empty last component.
  if (!p.project.has_filename()) p.project = p.project.parent_path();
  p.build = p.project / "build";
  p.cmake = p.build / "cmake";
  p.generated_include = p.cmake / "include";
  p.logs = p.build / "logs";
  p.build_log = p.logs / "build.log";
  p.torch_cache = p.build / "torch-env.json";
  p.cmake_key = p.cmake / "kbuild-key.json";
  return p;
}

fs::path ResourcePath(const std::string& name) {
  return KbuildHome() / "tools" / "kbuild" / "resources" / name;
}

Expected<fs::path> CacheDir() {
  if (auto dir = GetEnv("KBUILD_CACHE_DIR")) return fs::path(*dir);
  if (auto xdg = GetEnv("XDG_CACHE_HOME")) return fs::path(*xdg) / "kbuild";
  if (auto home = GetEnv("HOME")) return fs::path(*home) / ".cache" / "kbuild";
  const fs::path shared_temp =
      fs::temp_directory_path() / ("kbuild-cache-" + std::to_string(geteuid()));
  Status own =
      EnsurePrivateFolder(shared_temp, "set KBUILD_CACHE_DIR (or HOME) to a folder of yours");
  if (!own.ok()) return own.error();
  return shared_temp;
}

Status WriteIfChanged(FileSystem& fs, const fs::path& path, const std::string& content,
                      bool* changed) {
  if (changed) *changed = false;
  if (fs.Exists(path)) {
    auto old = fs.Read(path);
    if (old && *old == content) return {};
  }
  if (changed) *changed = true;
  return fs.Write(path, content);
}

}  // namespace kb
