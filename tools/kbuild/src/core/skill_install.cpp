#include "core/skill_install.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/json_fields.h"
#include "core/kbuild_home.h"
#include "core/message_text.h"
#include "core/report.h"
#include "core/sha256.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

// Build outputs and caches that a template folder may hold locally.
bool IsBuildOutput(const fs::path& relative) {
  static const std::set<std::string> kSkipped = {"build", "__pycache__", ".git", ".venv",
                                                 ".pytest_cache"};
  for (const auto& part : relative) {
    if (kSkipped.count(part.string())) return true;
  }
  return relative.extension() == ".pyc";
}

using Digests = std::map<std::string, std::string>;  // relative path -> "sha256:<hex>"

std::string Digest(const std::string& content) { return "sha256:" + Sha256Hex(content); }

Error InstallError(ExitCode code, const fs::path& where, std::string message, std::string hint) {
  Error e = MakeError(code, std::move(message), std::move(hint));
  e.path = where.string();
  return e;
}

Error ManifestError(const fs::path& file, std::string message) {
  return InstallError(ExitCode::kUsage, file, std::move(message),
                      "delete it to treat every file in this folder as locally edited, or pass "
                      "--force to overwrite the folder");
}

// The manifest decides what a re-install deletes, so it is read as hostile:
// a regular file of bounded size whose entries stay inside the skill folder.
Expected<Digests> ReadManifest(const FileSystem& fs, const fs::path& dir) {
  const fs::path file = dir / kSkillManifestName;
  Digests digests;
  const FileKind kind = fs.KindOf(file);
  if (kind == FileKind::kMissing) return digests;
  if (kind != FileKind::kRegular) {
    return ManifestError(file, "the install manifest is not a regular file (it is " +
                                   std::string(kind == FileKind::kSymlink     ? "a symbolic link"
                                               : kind == FileKind::kDirectory ? "a directory"
                                                                              : "a special file") +
                                   ")");
  }
  auto text = fs.ReadAtMost(file, kMaxManifestBytes);
  if (!text) {
    Error e = text.error();
    e.hint = ManifestError(file, "").hint;
    return e;
  }
  auto doc = ParseUntrustedJson(*text);
  if (!doc.is_object() || !doc.contains("files") || !doc["files"].is_object()) {
    return ManifestError(file, "the install manifest is not valid");
  }
  for (const auto& [path, digest] : doc["files"].items()) {
    const std::string quoted = "'" + CutForMessage(path) + "'";
    if (std::string reason = OutsideFolderReason(path); !reason.empty()) {
      return ManifestError(file, "the install manifest lists " + quoted +
                                     ", outside the skill folder (" + reason + ")");
    }
    if (!digest.is_string() || digest.get<std::string>().rfind("sha256:", 0) != 0) {
      return ManifestError(
          file, "the install manifest entry " + quoted + " has no \"sha256:<hex>\" digest");
    }
    digests[path] = digest.get<std::string>();
  }
  return digests;
}

// The pack file or manifest entry `key` inside the skill folder; an error for
// one that would leave it through '..' or a symlinked folder.
Expected<FileKind> KindInSkillFolder(const FileSystem& fs, const fs::path& dir,
                                     const std::string& key) {
  Expected<FileKind> kind = KindBelow(fs, dir, key);
  if (!kind) {
    Error e = kind.error();
    e.message = "'" + CutForMessage(key) + "': " + e.message;
    return e;
  }
  return kind;
}

std::string ManifestText(const Digests& digests) {
  nlohmann::json doc = {{"skill", kSkillName},
                        {"kbuild_version", KBUILD_VERSION},
                        {"files", nlohmann::json::object()}};
  for (const auto& [path, digest] : digests) doc["files"][path] = digest;
  return JsonText(doc) + "\n";
}

// What installing into one folder would do, worked out before any write.
struct Plan {
  SkillInstallResult result;
  std::vector<std::pair<fs::path, const std::string*>> writes;  // relative path, content
  std::vector<std::string> edited;                              // locally edited, relative
  Digests manifest;                                             // what to record afterwards
};

Expected<Plan> PlanInstall(const FileSystem& fs, const std::vector<SkillPackFile>& pack,
                           const std::vector<std::string>& contents, const fs::path& dir,
                           bool force) {
  Plan plan;
  plan.result.dir = dir;
  Digests previous;
  if (!force) {
    auto read = ReadManifest(fs, dir);
    if (!read) return read.error();
    previous = std::move(*read);
  }
  std::set<std::string> in_pack;
  for (size_t i = 0; i < pack.size(); ++i) {
    const std::string key = pack[i].relative.generic_string();
    const std::string digest = Digest(contents[i]);
    in_pack.insert(key);
    plan.manifest[key] = digest;
    const fs::path target = dir / pack[i].relative;
    Expected<FileKind> kind = KindInSkillFolder(fs, dir, key);
    if (!kind) return kind.error();
    if (*kind != FileKind::kMissing && *kind != FileKind::kRegular && !force) {
      plan.edited.push_back(key);  // a link or folder in the way: never read through it
      continue;
    }
    if (*kind == FileKind::kRegular) {
      auto current = fs.Read(target);
      if (!current) return current.error();
      const std::string current_digest = Digest(*current);
      if (current_digest == digest) {
        plan.result.unchanged.push_back(pack[i].relative);
        continue;
      }
      // Differs from the pack: fine only if it is what we installed last time.
      auto it = previous.find(key);
      if (!force && (it == previous.end() || it->second != current_digest)) {
        plan.edited.push_back(key);
        continue;
      }
    }
    plan.writes.emplace_back(pack[i].relative, &contents[i]);
    plan.result.written.push_back(pack[i].relative);
  }
  // Files an older pack installed and nobody touched since: remove them.
  for (const auto& [key, digest] : previous) {
    if (in_pack.count(key)) continue;
    Expected<FileKind> kind = KindInSkillFolder(fs, dir, key);
    if (!kind) return kind.error();
    if (*kind != FileKind::kRegular) continue;  // only regular files are ever deleted
    auto current = fs.Read(dir / key);
    if (current && Digest(*current) == digest) plan.result.removed.emplace_back(key);
  }
  return plan;
}

Error EditedFilesError(const std::vector<Plan>& plans) {
  std::string message = "refusing to overwrite locally edited files:";
  for (const auto& plan : plans) {
    for (const auto& file : plan.edited) message += " " + (plan.result.dir / file).string();
  }
  return MakeError(ExitCode::kUsage, message,
                   "copy your changes elsewhere and re-run, or pass --force to "
                   "overwrite them "
                   "with the pack's version");
}

}  // namespace

Expected<std::vector<SkillPackFile>> ListSkillPack(const FileSystem& fs, const fs::path& home) {
  const fs::path skill_dir = home / "skills" / kSkillName;
  if (!fs.Exists(skill_dir / "SKILL.md")) {
    return InstallError(ExitCode::kEnvironment, skill_dir / "SKILL.md",
                        "the skill pack is missing from kbuild's data folder",
                        DataFolderHint("skills/, references/ and templates/"));
  }
  std::vector<SkillPackFile> pack;
  for (const auto& rel : fs.ListFilesRecursive(skill_dir)) {
    if (rel.filename() == kSkillManifestName || IsBuildOutput(rel)) continue;
    pack.push_back({skill_dir / rel, rel});
  }
  for (const char* folder : {"references", "templates"}) {
    for (const auto& rel : fs.ListFilesRecursive(home / folder)) {
      if (IsBuildOutput(rel)) continue;
      pack.push_back({home / folder / rel, fs::path(folder) / rel});
    }
  }
  return pack;
}

std::string SkillAgentName(SkillAgent agent) {
  switch (agent) {
    case SkillAgent::kClaude:
      return "claude";
    case SkillAgent::kCodex:
      return "codex";
    case SkillAgent::kOpenCode:
      return "opencode";
  }
  return "claude";
}

fs::path SkillDestination(SkillAgent agent, bool global, const fs::path& base) {
  switch (agent) {
    case SkillAgent::kClaude:
      return base / ".claude" / "skills" / kSkillName;
    case SkillAgent::kCodex:
      return base / ".codex" / "skills" / kSkillName;
    case SkillAgent::kOpenCode:
      // OpenCode keeps user-wide settings under ~/.config, project ones under
      // .opencode.
      return global ? base / ".config" / "opencode" / "skills" / kSkillName
                    : base / ".opencode" / "skills" / kSkillName;
  }
  return base;
}

Expected<std::vector<SkillInstallResult>> InstallSkill(FileSystem& fs,
                                                       const SkillInstallRequest& request) {
  auto pack = ListSkillPack(fs, request.home);
  if (!pack) return pack.error();
  std::vector<std::string> contents;
  for (const auto& file : *pack) {
    auto text = fs.Read(file.source);
    if (!text) return text.error();
    contents.push_back(std::move(*text));
  }

  std::vector<std::pair<std::string, fs::path>> targets;
  if (!request.dest.empty()) {
    targets.emplace_back("dest", request.dest / kSkillName);
  } else {
    std::vector<SkillAgent> agents = request.agents;
    if (agents.empty()) agents.push_back(SkillAgent::kClaude);
    const fs::path base = request.global ? request.user_home : request.project_dir;
    for (SkillAgent agent : agents) {
      const fs::path dir = SkillDestination(agent, request.global, base);
      // A repository may hold .claude (or .claude/skills, ...) as a link to
      // anywhere: in a project, every folder down to the skill's is checked.
      // Your home's own links (--global) and --dest are yours, and followed.
      if (!request.global) {
        auto kind = KindBelow(fs, base, dir.lexically_relative(base));
        if (!kind) return kind.error();
        if (*kind == FileKind::kSymlink) return ThroughSymlinkError(dir, dir);
      }
      targets.emplace_back(SkillAgentName(agent), dir);
    }
  }

  std::vector<Plan> plans;
  bool any_edited = false;
  for (const auto& [agent, dir] : targets) {
    auto plan = PlanInstall(fs, *pack, contents, dir, request.force);
    if (!plan) return plan.error();
    plan->result.agent = agent;
    any_edited = any_edited || !plan->edited.empty();
    plans.push_back(std::move(*plan));
  }
  if (any_edited) return EditedFilesError(plans);

  std::vector<SkillInstallResult> results;
  for (auto& plan : plans) {
    for (const auto& [relative, content] : plan.writes) {
      if (auto s = fs.Write(plan.result.dir / relative, *content); !s) return s.error();
    }
    for (const auto& stale : plan.result.removed) {
      if (auto s = fs.RemoveFileBelow(plan.result.dir, stale); !s) return s.error();
    }
    if (auto s = fs.Write(plan.result.dir / kSkillManifestName, ManifestText(plan.manifest)); !s) {
      return s.error();
    }
    results.push_back(std::move(plan.result));
  }
  return results;
}

}  // namespace kb
