#include "core/include_listing.h"

namespace kb {

namespace {

// `relative` lexically inside the project, as written in build.toml.
std::optional<std::string> InsideProject(const fs::path& relative) {
  const fs::path normal = relative.lexically_normal();
  if (normal.empty() || normal.is_absolute() || *normal.begin() == "..") return std::nullopt;
  return normal.generic_string();
}

}  // namespace

std::optional<std::string> ResolveProjectInclude(const FileSystem& fs, const fs::path& root,
                                                 const std::string& including,
                                                 const std::string& target, bool quoted,
                                                 const std::vector<std::string>& include_dirs) {
  if (fs::path(target).is_absolute()) return std::nullopt;
  std::vector<fs::path> folders;
  if (quoted) folders.push_back(fs::path(including).parent_path());
  folders.insert(folders.end(), include_dirs.begin(), include_dirs.end());
  for (const auto& folder : folders) {
    auto relative = InsideProject(folder / target);
    if (relative && fs.KindOf(root / *relative) == FileKind::kRegular) return relative;
  }
  return std::nullopt;
}

}  // namespace kb
