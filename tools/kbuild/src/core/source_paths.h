// Listed sources and include folders must be plain files and folders inside
// the project: kbuild compiles them with the user's permissions, and the Hub
// build copies only the project's own files.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/fs.h"

namespace kb {

struct PathProblem {
  std::string message;
  std::string hint;
};

// What a listed path names: the words errors use for it.
enum class ListedKind { kSourceFile, kIncludeDirectory };

// Without the disk: an absolute path, '..' leading out of the project, or a
// name the generated CMake cannot carry. `key` is "src" or "include",
// `table` "[torch]" or "[kernel.x]".
std::optional<PathProblem> LexicalPathProblem(const std::string& path, const std::string& key,
                                              const std::string& table);

// On the disk below `root`: a symlink on the way (it may lead anywhere, and
// the Hub keeps it as a link), or the wrong kind of entry (a directory, FIFO
// or device as a source; a file as an include folder). Nothing when the entry
// is fine or missing (the caller reports a missing one with its own hint).
std::optional<PathProblem> DiskPathProblem(const FileSystem& fs, const std::filesystem::path& root,
                                           const std::string& relative, ListedKind kind,
                                           const std::string& table);

// "source file" or "include directory".
std::string ListedKindName(ListedKind kind);

}  // namespace kb
