#include "core/source_paths.h"

#include "core/cmake_quote.h"

namespace kb {

namespace {

constexpr const char* kSymlinkHint =
    "list the real file or folder inside the project: a symlink may lead outside it (kbuild "
    "would compile files that are not the project's) and the Hub build does not follow it";

}  // namespace

std::string ListedKindName(ListedKind kind) {
  return kind == ListedKind::kSourceFile ? "source file" : "include directory";
}

std::optional<PathProblem> LexicalPathProblem(const std::string& path, const std::string& key,
                                              const std::string& table) {
  const std::string entry = "'" + key + "' entry '" + path + "' in " + table;
  const fs::path p(path);
  if (p.is_absolute()) {
    return PathProblem{entry + " is an absolute path",
                       "paths are relative to the project directory and stay inside it"};
  }
  const fs::path normal = p.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..") {
    return PathProblem{entry + " leads outside the project directory",
                       "kbuild compiles only the project's own files: move the file into the "
                       "project and list it relative to build.toml"};
  }
  if (auto reason = CMakeUnsupportedPathReason(path)) {
    return PathProblem{entry + " contains " + *reason,
                       "rename the file: the generated CMake cannot name it exactly"};
  }
  return std::nullopt;
}

std::optional<PathProblem> DiskPathProblem(const FileSystem& fs, const fs::path& root,
                                           const std::string& relative, ListedKind kind,
                                           const std::string& table) {
  const std::string what = ListedKindName(kind) + " '" + relative + "' in " + table;
  fs::path at = root;
  fs::path walked;
  FileKind found = FileKind::kDirectory;
  // Component by component, so a symlinked parent folder is caught too.
  for (const auto& part : fs::path(relative).lexically_normal()) {
    if (part.empty() || part == ".") continue;
    at /= part;
    walked /= part;
    found = fs.KindOf(at);
    if (found == FileKind::kMissing) return std::nullopt;
    if (found != FileKind::kSymlink) continue;
    if (walked == fs::path(relative).lexically_normal()) {
      return PathProblem{what + " is a symlink", kSymlinkHint};
    }
    return PathProblem{what + " lies under the symlink '" + walked.generic_string() + "'",
                       kSymlinkHint};
  }
  if (kind == ListedKind::kIncludeDirectory) {
    if (found == FileKind::kDirectory) return std::nullopt;
    return PathProblem{what + " is not a directory",
                       "list the folder that holds the headers, e.g. the file's parent folder"};
  }
  if (found == FileKind::kRegular) return std::nullopt;
  if (found == FileKind::kDirectory) {
    return PathProblem{what + " is a directory",
                       "list the files in it one by one, e.g. '" +
                           (fs::path(relative) / "kernel.cu").generic_string() + "'"};
  }
  return PathProblem{what + " is not a regular file (a FIFO, device or socket)",
                     "list only regular source files"};
}

}  // namespace kb
