#include "core/tune_workspace.h"

#include <algorithm>

#include "core/message_text.h"
#include "core/paths.h"
#include "core/run_folder.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

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
  return NewRunFolder(fs, project, "tune", stamp);
}

Expected<fs::path> ResumeTuneRunFolder(const FileSystem& fs, const fs::path& project,
                                       const fs::path& given) {
  return ResumeRunFolder(fs, project, given, "tune", kTuneHistoryFile);
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
