#include "core/package_entries.h"

#include "core/hub_layout.h"

namespace kb {

namespace fs = std::filesystem;

Error UnpackableEntryError(const fs::path& where, FileKind kind) {
  Error e = MakeError(ExitCode::kUsage,
                      kind == FileKind::kSymlink
                          ? "refusing to package a symbolic link"
                          : "refusing to package something that is not a regular file (a FIFO, "
                            "socket or device)",
                      "replace it with the real file or folder: kbuild package never follows a "
                      "link (it may lead outside the project) and copies regular files only");
  e.path = where.string();
  return e;
}

Expected<FileKind> PackableKind(const FileSystem& fs, const fs::path& root,
                                const fs::path& relative) {
  Expected<FileKind> kind = KindBelow(fs, root, relative);
  if (!kind) {
    Error e = kind.error();  // through a symlinked folder, or outside the project
    e.hint = UnpackableEntryError(root / relative, FileKind::kSymlink).hint;
    return e;
  }
  if (*kind == FileKind::kSymlink || *kind == FileKind::kOther) {
    return UnpackableEntryError(root / relative, *kind);
  }
  return kind;
}

Expected<std::vector<fs::path>> PackableFilesBelow(const FileSystem& fs, const fs::path& root,
                                                   const fs::path& relative_dir) {
  Expected<FileKind> kind = PackableKind(fs, root, relative_dir);
  if (!kind) return kind.error();
  std::vector<fs::path> files;
  if (*kind != FileKind::kDirectory) return files;
  for (const TreeEntry& entry : fs.ListEntries(root / relative_dir)) {
    if (IsPythonCachePath(entry.relative)) continue;
    const fs::path relative = relative_dir / entry.relative;
    if (entry.kind != FileKind::kRegular) return UnpackableEntryError(root / relative, entry.kind);
    files.push_back(relative);
  }
  return files;
}

}  // namespace kb
