#include "core/run_folder.h"

#include <iterator>

#include "core/message_text.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

Error ResumeError(const fs::path& given, const std::string& command, const std::string& why) {
  return MakeError(ExitCode::kUsage, "--resume " + OneLine(given.string()) + ": " + why,
                   "name a folder an earlier kbuild " + command + " made, e.g. --resume results/" +
                       command + "-20261201-140000");
}

// What kbuild never puts below a run folder it writes into: the first link,
// FIFO, ... under `folder`, said; "" when it holds only folders and regular
// files.
std::string EntryKbuildNeverMakes(const FileSystem& fs, const fs::path& folder) {
  for (const TreeEntry& entry : fs.ListEntries(folder)) {
    if (entry.kind == FileKind::kRegular) continue;
    return (folder / entry.relative).string() + " is " + FileKindName(entry.kind) +
           ", which kbuild never makes there";
  }
  return "";
}

}  // namespace

Status CheckResultsFolder(const FileSystem& fs, const fs::path& results) {
  const FileKind kind = fs.KindOf(results);
  if (kind == FileKind::kDirectory || kind == FileKind::kMissing) return {};
  Error e = MakeError(ExitCode::kUsage,
                      kind == FileKind::kSymlink ? "the results folder is a symbolic link"
                                                 : "the results folder is not a folder",
                      "remove it: kbuild writes its results there");
  e.path = results.string();
  return e;
}

Expected<fs::path> NewRunFolder(const FileSystem& fs, const fs::path& project,
                                const std::string& command, const std::string& stamp) {
  const fs::path results = project / "results";
  if (Status ok = CheckResultsFolder(fs, results); !ok) return ok.error();
  const std::string base = command + "-" + stamp;
  fs::path run = results / base;
  for (int n = 2; fs.KindOf(run) != FileKind::kMissing; ++n) {
    if (n > 100) return MakeError(ExitCode::kUsage, "too many " + command + " runs named " + base);
    run = results / (base + "-" + std::to_string(n));
  }
  return run;
}

std::string RunSubfolderProblem(const FileSystem& fs, const fs::path& run,
                                const fs::path& relative) {
  const fs::path folder = run / relative;
  Expected<FileKind> kind = KindBelow(fs, run, relative);
  if (!kind) return kind.error().message;
  if (*kind == FileKind::kMissing) return "";
  if (*kind != FileKind::kDirectory) return folder.string() + " is " + FileKindName(*kind);
  return EntryKbuildNeverMakes(fs, folder);
}

Expected<fs::path> ResumeRunFolder(const FileSystem& fs, const fs::path& project,
                                   const fs::path& given, const std::string& command,
                                   const std::string& history) {
  const fs::path results = (project / "results").lexically_normal();
  fs::path run = (given.is_absolute() ? given : project / given).lexically_normal();
  if (run.filename().empty()) run = run.parent_path();  // "results/tune-x/", as shells complete it
  const fs::path relative = run.lexically_relative(results);
  const bool one_below = !relative.empty() && std::distance(relative.begin(), relative.end()) == 1;
  if (!one_below || relative.string() == ".." || relative.string() == ".") {
    return ResumeError(given, command, "not a folder directly inside " + results.string());
  }
  if (!relative.string().starts_with(command + "-")) {
    return ResumeError(
        given, command,
        "not a " + command + " run folder (its name starts with '" + command + "-')");
  }
  if (fs.KindOf(results) != FileKind::kDirectory) {
    return ResumeError(given, command,
                       results.string() + " is not a folder (a symlink is refused)");
  }
  const FileKind kind = fs.KindOf(run);
  if (kind == FileKind::kSymlink) return ResumeError(given, command, "a symbolic link is refused");
  if (kind != FileKind::kDirectory) return ResumeError(given, command, "no such folder");
  if (fs.KindOf(run / history) != FileKind::kRegular) {
    return ResumeError(given, command, "it holds no regular file " + history);
  }
  // kbuild writes, reads back and deletes below the folder by the names its
  // records give: a link planted anywhere in it could take those outside the
  // project. kbuild itself puts none there.
  if (std::string why = EntryKbuildNeverMakes(fs, run); !why.empty()) {
    return ResumeError(given, command, why);
  }
  return run;
}

}  // namespace kb
