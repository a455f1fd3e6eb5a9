// `kbuild skill install`: copies the cuda-kernels skill pack (SKILL.md,
// references/, templates/) from kbuild's data folder into an agent's skill
// folder, offline. A manifest of sha256 digests remembers what was installed,
// so a re-install replaces untouched files and refuses to clobber local edits.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

inline constexpr const char* kSkillName = "cuda-kernels";
inline constexpr const char* kSkillManifestName = ".kbuild-skill-manifest.json";

// One file of the pack: where it is read from and where it lands, relative
// to the installed skill folder ("SKILL.md", "references/x.md", ...).
struct SkillPackFile {
  std::filesystem::path source;
  std::filesystem::path relative;
};

// The pack as an agent sees it once installed: skills/cuda-kernels/* at the
// top, then references/** and templates/** (build outputs left out).
// Error (exit 4) when `home` holds no skills/cuda-kernels/SKILL.md.
Expected<std::vector<SkillPackFile>> ListSkillPack(
    const FileSystem& fs, const std::filesystem::path& home);

enum class SkillAgent { kClaude, kCodex, kOpenCode };

struct SkillInstallRequest {
  std::filesystem::path home;         // kbuild's data folder (KbuildHome())
  std::vector<SkillAgent> agents;     // empty = Claude
  std::filesystem::path project_dir;  // base for per-project installs (-C)
  bool global = false;  // under `user_home` instead of `project_dir`
  std::filesystem::path user_home;  // $HOME, for --global
  std::filesystem::path dest;  // non-empty: install into dest/cuda-kernels only
  bool force = false;          // overwrite locally edited files
};

// The skill folder for one agent: .claude/skills/cuda-kernels under the
// project, or ~/.claude/skills, ~/.codex/skills, ~/.config/opencode/skills.
std::filesystem::path SkillDestination(SkillAgent agent, bool global,
                                       const std::filesystem::path& base);
std::string SkillAgentName(SkillAgent agent);

struct SkillInstallResult {
  std::string agent;          // "claude", "codex", "opencode", "dest"
  std::filesystem::path dir;  // the installed skill folder
  std::vector<std::filesystem::path>
      written;  // new or changed files, relative to dir
  std::vector<std::filesystem::path> unchanged;  // already identical
  std::vector<std::filesystem::path>
      removed;  // left over from an older pack, untouched since
};

// All-or-nothing: every destination is checked before anything is written.
// Error (exit 2) naming the edited files when a destination holds files that
// differ from both the pack and the manifest, unless `force`.
Expected<std::vector<SkillInstallResult>> InstallSkill(
    FileSystem& fs, const SkillInstallRequest& request);

}  // namespace kb
