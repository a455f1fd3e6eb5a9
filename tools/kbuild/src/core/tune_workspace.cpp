#include "core/tune_workspace.h"

#include <algorithm>

#include "core/message_text.h"
#include "core/paths.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRunPrefix = "tune-";

Error ResumeError(const fs::path& given, const std::string& why) {
  return MakeError(ExitCode::kUsage, "--resume " + OneLine(given.string()) + ": " + why,
                   "name a folder an earlier kbuild tune made, e.g. --resume "
                   "results/tune-20261201-140000");
}

// build/, results/ and any .git hold outputs and history, not the project.
bool LeftOutOfCopy(const fs::path& relative) {
  const std::string top = relative.begin()->string();
  if (top == "build" || top == "results") return true;
  return std::any_of(relative.begin(), relative.end(),
                     [](const fs::path& part) { return part == ".git"; });
}

Error TooLargeProjectError(const fs::path& project, const std::string& what) {
  return MakeError(
      ExitCode::kUsage,
      "the project " + project.string() + " is too large to copy per variant (" + what + ")",
      "keep generated and data files in build/ or results/, which tune does not "
      "copy");
}

}  // namespace

Expected<fs::path> NewTuneRunFolder(const FileSystem& fs, const fs::path& project,
                                    const std::string& stamp) {
  const fs::path results = project / "results";
  const FileKind kind = fs.KindOf(results);
  if (kind != FileKind::kMissing && kind != FileKind::kDirectory) {
    return MakeError(ExitCode::kUsage, results.string() + " is not a folder (a symlink or file)",
                     "remove it: kbuild writes its results there");
  }
  const std::string base = std::string(kRunPrefix) + stamp;
  fs::path run = results / base;
  for (int n = 2; fs.KindOf(run) != FileKind::kMissing; ++n) {
    if (n > 100) return MakeError(ExitCode::kUsage, "too many tune runs named " + base);
    run = results / (base + "-" + std::to_string(n));
  }
  return run;
}

Expected<fs::path> ResumeTuneRunFolder(const FileSystem& fs, const fs::path& project,
                                       const fs::path& given) {
  const fs::path results = (project / "results").lexically_normal();
  const fs::path run = (given.is_absolute() ? given : project / given).lexically_normal();
  const fs::path relative = run.lexically_relative(results);
  const bool one_below = !relative.empty() && std::distance(relative.begin(), relative.end()) == 1;
  if (!one_below || relative.string() == ".." || relative.string() == ".") {
    return ResumeError(given, "not a folder directly inside " + results.string());
  }
  if (!relative.string().starts_with(kRunPrefix)) {
    return ResumeError(given, "not a tune run folder (its name starts with 'tune-')");
  }
  if (fs.KindOf(results) != FileKind::kDirectory) {
    return ResumeError(given, results.string() + " is not a folder (a symlink is refused)");
  }
  const FileKind kind = fs.KindOf(run);
  if (kind == FileKind::kSymlink) return ResumeError(given, "a symbolic link is refused");
  if (kind != FileKind::kDirectory) return ResumeError(given, "no such folder");
  if (fs.KindOf(run / kTuneHistoryFile) != FileKind::kRegular) {
    return ResumeError(given, "it holds no regular file history.jsonl");
  }
  return run;
}

Expected<ProjectSnapshot> SnapshotProject(const FileSystem& fs, const fs::path& project) {
  ProjectSnapshot snapshot;
  std::uintmax_t total = 0;
  for (const fs::path& relative : fs.ListFilesRecursive(project)) {
    if (relative.empty() || LeftOutOfCopy(relative)) continue;
    auto kind = KindBelow(fs, project, relative);
    if (!kind || *kind == FileKind::kSymlink) {
      snapshot.skipped_links.push_back(relative);  // a link, or a path through one
      continue;
    }
    if (*kind != FileKind::kRegular) continue;
    if (snapshot.files.size() >= kMaxTuneCopyFiles) {
      return TooLargeProjectError(project,
                                  "more than " + std::to_string(kMaxTuneCopyFiles) + " files");
    }
    auto content = fs.ReadAtMost(project / relative, kMaxTuneCopyBytes - total);
    if (!content) {
      if (content.error().code == ExitCode::kUsage &&
          fs.KindOf(project / relative) == FileKind::kRegular) {
        return TooLargeProjectError(
            project, "more than " + std::to_string(kMaxTuneCopyBytes >> 20) + " MiB in all");
      }
      return content.error();
    }
    total += content->size();
    snapshot.files.emplace_back(relative, std::move(*content));
  }
  return snapshot;
}

Status WriteProjectCopy(FileSystem& fs, const ProjectSnapshot& snapshot, const fs::path& copy) {
  for (const auto& [relative, content] : snapshot.files) {
    if (Status s = WriteIfChanged(fs, copy / relative, content); !s) return s;
  }
  return {};
}

}  // namespace kb
