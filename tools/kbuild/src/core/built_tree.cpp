#include "core/built_tree.h"

#include "core/json_fields.h"
#include "core/sha256.h"

namespace kb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Every entry below `from` copied to `to`; the first entry that is not a regular file, or a
// tree past the bound, is the problem (returned, nothing more copied).
Expected<std::optional<std::string>> CopyTree(FileSystem& fs, const fs::path& from,
                                              const fs::path& to) {
  const std::vector<TreeEntry> entries = fs.ListEntries(from);
  if (entries.size() > kMaxBuiltTreeFiles) {
    return std::optional<std::string>(from.string() + " holds more than " +
                                      std::to_string(kMaxBuiltTreeFiles) + " files");
  }
  for (const TreeEntry& entry : entries) {
    if (entry.kind != FileKind::kRegular) {
      return std::optional<std::string>((from / entry.relative).string() +
                                        " is not a regular file (refused, not followed)");
    }
    if (const std::string why = OutsideFolderReason(entry.relative); !why.empty()) {
      return std::optional<std::string>((from / entry.relative).string() + ": " + why);
    }
    if (Status s = fs.CopyFile(from / entry.relative, to / entry.relative); !s) return s.error();
  }
  return std::optional<std::string>();
}

}  // namespace

fs::path StagedWorkSetup::CopyOf(const std::string& id) const {
  return StagedCopyDir(stage_root, queue_dir, id);
}

fs::path StagedCopyDir(const fs::path& stage_root, const fs::path& queue_dir,
                       const std::string& id) {
  return stage_root / Sha256Hex(queue_dir.lexically_normal().string()).substr(0, 12) / id /
         "project";
}

Expected<json> PublishBuiltTree(FileSystem& fs, WorkQueue& queue, const std::string& id,
                                const std::string& worker, const fs::path& copy) {
  auto tree = queue.BuiltTreeDir(id, worker);
  if (!tree) return tree.error();
  if (Status s = fs.Remove(*tree); !s) return s.error();
  auto problem = CopyTree(fs, copy, *tree);
  if (!problem) return problem.error();
  if (*problem) {
    return MakeError(ExitCode::kEnvironment, "cannot publish the built tree: " + **problem,
                     "the build left something other than files and folders in its copy");
  }
  return json{{"builder", worker}, {"copy", copy.string()}};
}

Expected<std::optional<std::string>> FetchBuiltTree(FileSystem& fs, WorkQueue& queue,
                                                    const std::string& id, const json& built,
                                                    const fs::path& copy) {
  const std::string builder = StringOr(built, "builder");
  if (Status ok = CheckQueueName(builder, "worker"); !ok) {
    return std::optional<std::string>("the build record's builder: " + ok.error().message);
  }
  if (StringOr(built, "copy") != copy.string()) {
    return std::optional<std::string>(
        "built in " + StringOr(built, "copy") + ", but this worker's copy is " + copy.string() +
        " (a build folder at another path compiles again): give both roles the same "
        "--stage-dir and the same --queue path");
  }
  auto tree = queue.BuiltTreeDir(id, builder);
  if (!tree) return tree.error();
  const fs::path relative = fs::path("items") / id / builder;
  auto kind = KindBelow(fs, tree->parent_path().parent_path().parent_path(), relative);
  if (!kind || *kind != FileKind::kDirectory) {
    return std::optional<std::string>(tree->string() + " is not a folder" +
                                      (kind ? "" : ": " + kind.error().message));
  }
  if (Status s = fs.Remove(copy); !s) return s.error();
  return CopyTree(fs, *tree, copy);
}

Expected<WorkResult> BuiltWorkResult(FileSystem& fs, const StagedWorkSetup& setup,
                                     const std::string& id, const json& extra) {
  WorkQueue queue(fs, setup.queue_dir);
  const fs::path copy = setup.CopyOf(id);
  auto record = PublishBuiltTree(fs, queue, id, setup.worker, copy);
  if (!record) return record.error();
  record->update(extra);
  (void)fs.Remove(copy.parent_path());  // the node's disk; the queue holds the tree now
  return WorkResult{*record, "built", true};
}

Expected<std::optional<WorkResult>> FetchOrLose(FileSystem& fs, const StagedWorkSetup& setup,
                                                const ClaimedWork& work) {
  WorkQueue queue(fs, setup.queue_dir);
  auto problem = FetchBuiltTree(fs, queue, work.id, work.built, setup.CopyOf(work.id));
  if (!problem) return problem.error();
  if (!*problem) return std::optional<WorkResult>();
  return std::optional<WorkResult>(WorkResult{
      {{"verdict", "lost"}, {"reason", "unusable built tree: " + **problem}}, "lost", false});
}

}  // namespace kb
