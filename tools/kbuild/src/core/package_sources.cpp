#include "core/package_sources.h"

#include <set>

#include "core/package_entries.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

struct Listed {
  std::string path;
  bool folder = false;   // an include dir or a whole folder
  bool required = true;  // build.toml names it: missing is an error
};

std::vector<Listed> ListedPaths(const ProjectConfig& config) {
  std::vector<Listed> listed = {{"build.toml"}, {"kbuild.toml", false, false}};
  auto add = [&](const std::vector<std::string>& src, const std::vector<std::string>& include) {
    for (const auto& s : src) listed.push_back({s});
    for (const auto& i : include) listed.push_back({i, true});
  };
  if (config.torch) add(config.torch->src, config.torch->include);
  for (const auto& kernel : config.kernels) add(kernel.src, kernel.include);
  listed.push_back({"torch-ext/" + config.PythonName(), true});
  listed.push_back({"tests", true, false});
  listed.push_back({"benchmarks", true, false});
  return listed;
}

Error MissingListedError(const fs::path& where, bool folder) {
  Error e = MakeError(ExitCode::kUsage,
                      std::string(folder ? "folder" : "file") + " named by build.toml is missing",
                      "run 'kbuild check' and fix build.toml, then 'kbuild build' and package "
                      "again");
  e.path = where.string();
  return e;
}

}  // namespace

Expected<std::vector<fs::path>> PackageSourceFiles(const FileSystem& fs,
                                                   const ProjectConfig& config) {
  std::set<fs::path> files;
  for (const Listed& item : ListedPaths(config)) {
    const fs::path relative = fs::path(item.path).lexically_normal();
    Expected<FileKind> kind = PackableKind(fs, config.root, relative);
    if (!kind) return kind.error();
    if (*kind == FileKind::kMissing) {
      if (item.required) return MissingListedError(config.root / relative, item.folder);
      continue;
    }
    if (*kind == FileKind::kRegular) {
      files.insert(relative);
      continue;
    }
    auto below = PackableFilesBelow(fs, config.root, relative);
    if (!below) return below.error();
    files.insert(below->begin(), below->end());
  }
  return std::vector<fs::path>(files.begin(), files.end());
}

}  // namespace kb
