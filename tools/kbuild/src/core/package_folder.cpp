#include "core/package_folder.h"

#include <unistd.h>

namespace kb {

namespace fs = std::filesystem;

namespace {

Error DirError(const fs::path& where, std::string message, std::string hint) {
  Error e = MakeError(ExitCode::kUsage, std::move(message), std::move(hint));
  e.path = where.string();
  return e;
}

// ".<name>.kbuild-<what>-<pid>" beside DIR: hidden, and unique per process.
fs::path SiblingName(const fs::path& dir, const std::string& what) {
  return dir.parent_path() /
         ("." + dir.filename().string() + ".kbuild-" + what + "-" + std::to_string(getpid()));
}

}  // namespace

Expected<fs::path> ResolvePackageDir(const std::string& out, const std::string& name) {
  const fs::path given = out.empty() ? fs::path("dist") / name : fs::path(out);
  const std::string hint = "give a folder inside the project, e.g. --out dist/" + name +
                           ": kbuild never writes "
                           "outside the project";
  if (given.is_absolute()) return DirError(given, "--out must be relative to the project", hint);
  const fs::path normal = given.lexically_normal();
  if (normal.empty() || normal == "." || normal.begin()->string() == "..") {
    return DirError(given, "--out must name a folder inside the project", hint);
  }
  fs::path relative;  // without the trailing "" a "dist/x/" leaves
  for (const auto& part : normal) {
    if (!part.empty()) relative /= part;
  }
  return relative;
}

Expected<bool> CheckPackageDir(const FileSystem& fs, const fs::path& project,
                               const fs::path& relative, bool force) {
  const fs::path dir = project / relative;
  Expected<FileKind> kind = KindBelow(fs, project, relative);
  if (!kind) return kind.error();
  if (*kind == FileKind::kMissing) return false;
  if (*kind == FileKind::kSymlink) {
    return DirError(dir, "the package folder is a symbolic link",
                    "remove the link or choose another --out: kbuild never writes through one");
  }
  if (*kind != FileKind::kDirectory) {
    return DirError(dir, "the package folder exists and is not a folder",
                    "remove it or choose another --out");
  }
  if (fs.KindOf(dir / kPackageMarker) != FileKind::kRegular) {
    return DirError(dir,
                    "the folder exists and was not written by kbuild package (no " +
                        std::string(kPackageMarker) + ")",
                    "choose another --out, or move the folder away yourself: kbuild replaces "
                    "only folders it made, even with --force");
  }
  if (!force) {
    return DirError(dir, "the package folder exists",
                    "pass --force to replace it (it holds kbuild's marker), or choose another "
                    "--out");
  }
  return true;
}

Expected<fs::path> MakeStagingDir(FileSystem& fs, const fs::path& project,
                                  const fs::path& relative) {
  const fs::path staging = SiblingName(project / relative, "staging");
  if (Status s = fs.MakeDirectories(staging.parent_path()); !s) return s.error();
  // Checked after creating the parents: a link planted on the way is refused, not written through.
  Expected<FileKind> kind = KindBelow(fs, project, staging.lexically_relative(project));
  if (!kind) return kind.error();
  if (*kind != FileKind::kMissing) {
    return DirError(staging, "a staging folder of an earlier kbuild package is in the way",
                    "remove it: it is left from a run that was killed");
  }
  if (Status s = fs.MakeDirectories(staging); !s) return s.error();
  return staging;
}

Status PlaceStagedPackage(FileSystem& fs, const fs::path& staging, const fs::path& project,
                          const fs::path& relative, bool replace) {
  const fs::path dir = project / relative;
  if (!replace) return fs.RenameNoReplace(staging, dir);
  const fs::path old = SiblingName(dir, "old");
  if (Status s = fs.RenameNoReplace(dir, old); !s) return s;
  if (Status s = fs.RenameNoReplace(staging, dir); !s) {
    (void)fs.RenameNoReplace(old, dir);  // put the earlier package back
    return s;
  }
  return fs.Remove(old);
}

}  // namespace kb
