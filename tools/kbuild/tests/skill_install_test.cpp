#include "core/skill_install.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/sha256.h"

namespace kb {
namespace {

class SkillInstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Put("/kb/skills/cuda-kernels/SKILL.md", "skill\n");
    Put("/kb/references/guide.md", "guide\n");
    Put("/kb/templates/rmsnorm/build.toml", "toml\n");
    Put("/kb/templates/rmsnorm/build/junk.so",
        "built\n");  // build output: never shipped
    request_.home = "/kb";
    request_.project_dir = "/proj";
    request_.user_home = "/user";
  }
  void Put(const std::string& path, const std::string& text) {
    ASSERT_TRUE(fs_.Write(path, text).ok());
  }

  MemoryFileSystem fs_;
  SkillInstallRequest request_;
};

TEST_F(SkillInstallTest, PackLeavesBuildOutputsOut) {
  auto pack = ListSkillPack(fs_, "/kb");
  ASSERT_TRUE(pack.ok());
  std::vector<std::string> names;
  for (const auto& f : *pack) names.push_back(f.relative.generic_string());
  EXPECT_EQ(names, (std::vector<std::string>{"SKILL.md", "references/guide.md",
                                             "templates/rmsnorm/build.toml"}));
}

TEST_F(SkillInstallTest, MissingPackIsAnEnvironmentError) {
  auto pack = ListSkillPack(fs_, "/elsewhere");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(pack.error().Located(),
            "/elsewhere/skills/cuda-kernels/SKILL.md: the skill pack is "
            "missing from kbuild's data "
            "folder");
}

TEST_F(SkillInstallTest, DefaultsToClaudeInTheProject) {
  auto results = InstallSkill(fs_, request_);
  ASSERT_TRUE(results.ok()) << results.error().Located();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].agent, "claude");
  EXPECT_EQ((*results)[0].written.size(), 3u);
  EXPECT_EQ(*fs_.Read("/proj/.claude/skills/cuda-kernels/SKILL.md"), "skill\n");
  EXPECT_EQ(*fs_.Read("/proj/.claude/skills/cuda-kernels/templates/rmsnorm/build.toml"), "toml\n");
  EXPECT_TRUE(fs_.Exists("/proj/.claude/skills/cuda-kernels/.kbuild-skill-manifest.json"));
}

TEST_F(SkillInstallTest, AgentFoldersProjectAndGlobal) {
  EXPECT_EQ(SkillDestination(SkillAgent::kCodex, false, "/p"), "/p/.codex/skills/cuda-kernels");
  EXPECT_EQ(SkillDestination(SkillAgent::kOpenCode, false, "/p"),
            "/p/.opencode/skills/cuda-kernels");
  EXPECT_EQ(SkillDestination(SkillAgent::kOpenCode, true, "/u"),
            "/u/.config/opencode/skills/cuda-kernels");
  request_.global = true;
  request_.agents = {SkillAgent::kClaude, SkillAgent::kCodex};
  ASSERT_TRUE(InstallSkill(fs_, request_).ok());
  EXPECT_TRUE(fs_.Exists("/user/.claude/skills/cuda-kernels/SKILL.md"));
  EXPECT_TRUE(fs_.Exists("/user/.codex/skills/cuda-kernels/SKILL.md"));
  EXPECT_FALSE(fs_.Exists("/proj/.claude"));
}

// A repository may plant .claude, .claude/skills or the skill folder itself
// as a link to anywhere: a project install refuses every one, writing nothing.
TEST_F(SkillInstallTest, AProjectInstallRefusesAFolderOnTheWayThatIsALink) {
  for (const std::string link : {"/proj/.claude", "/proj/.claude/skills",
                                 "/proj/.claude/skills/cuda-kernels"}) {
    MemoryFileSystem fs = fs_;
    fs.PlantSymlink(link, "/victim");
    auto results = InstallSkill(fs, request_);
    ASSERT_FALSE(results.ok()) << link;
    EXPECT_EQ(results.error().code, ExitCode::kUsage);
    EXPECT_NE(results.error().message.find("symbolic link " + link), std::string::npos)
        << results.error().message;
    EXPECT_FALSE(fs.Exists("/victim/SKILL.md"));
    EXPECT_FALSE(fs.Exists("/victim/skills/cuda-kernels/SKILL.md"));
  }
}

TEST_F(SkillInstallTest, DestInstallsIntoPathSlashCudaKernels) {
  request_.dest = "/somewhere";
  ASSERT_TRUE(InstallSkill(fs_, request_).ok());
  EXPECT_TRUE(fs_.Exists("/somewhere/cuda-kernels/references/guide.md"));
}

TEST_F(SkillInstallTest, ReinstallUpdatesUntouchedFilesAndRemovesStaleOnes) {
  Put("/kb/references/old.md", "old\n");
  ASSERT_TRUE(InstallSkill(fs_, request_).ok());
  ASSERT_TRUE(fs_.Remove("/kb/references/old.md").ok());
  Put("/kb/skills/cuda-kernels/SKILL.md", "skill v2\n");
  auto results = InstallSkill(fs_, request_);
  ASSERT_TRUE(results.ok()) << results.error().Located();
  const auto& r = (*results)[0];
  EXPECT_EQ(r.written, (std::vector<std::filesystem::path>{"SKILL.md"}));
  EXPECT_EQ(r.unchanged.size(), 2u);
  EXPECT_EQ(r.removed, (std::vector<std::filesystem::path>{"references/old.md"}));
  EXPECT_EQ(*fs_.Read("/proj/.claude/skills/cuda-kernels/SKILL.md"), "skill v2\n");
  EXPECT_FALSE(fs_.Exists("/proj/.claude/skills/cuda-kernels/references/old.md"));
}

TEST_F(SkillInstallTest, RefusesToOverwriteLocalEditsUnlessForced) {
  ASSERT_TRUE(InstallSkill(fs_, request_).ok());
  Put("/proj/.claude/skills/cuda-kernels/references/guide.md", "my notes\n");
  Put("/kb/references/guide.md", "guide v2\n");
  Put("/kb/skills/cuda-kernels/SKILL.md", "skill v2\n");
  auto refused = InstallSkill(fs_, request_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ExitCode::kUsage);
  EXPECT_EQ(refused.error().message,
            "refusing to overwrite locally edited files: "
            "/proj/.claude/skills/cuda-kernels/references/guide.md");
  // All-or-nothing: the untouched SKILL.md was not updated either.
  EXPECT_EQ(*fs_.Read("/proj/.claude/skills/cuda-kernels/SKILL.md"), "skill\n");

  request_.force = true;
  ASSERT_TRUE(InstallSkill(fs_, request_).ok());
  EXPECT_EQ(*fs_.Read("/proj/.claude/skills/cuda-kernels/references/guide.md"), "guide v2\n");
}

TEST_F(SkillInstallTest, FilesOfUnknownOriginCountAsEdits) {
  Put("/proj/.claude/skills/cuda-kernels/SKILL.md", "someone else's\n");
  auto refused = InstallSkill(fs_, request_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ExitCode::kUsage);
}

// A manifest is read as hostile: it decides what a re-install deletes.
class HostileManifestTest : public SkillInstallTest {
 protected:
  static constexpr const char* kDir = "/proj/.claude/skills/cuda-kernels";
  void PlantManifest(const std::string& files_json) {
    Put(std::string(kDir) + "/" + kSkillManifestName, "{\"files\": " + files_json + "}");
  }
  // The digest a crafted manifest would give a victim file, so it looks untouched.
  static std::string DigestOf(const std::string& text) { return "sha256:" + Sha256Hex(text); }
  std::string Refusal() {
    auto refused = InstallSkill(fs_, request_);
    EXPECT_FALSE(refused.ok());
    if (refused.ok()) return "";
    EXPECT_EQ(refused.error().code, ExitCode::kUsage);
    return refused.error().Located();
  }
};

TEST_F(HostileManifestTest, AbsoluteEntryIsRefusedAndNothingIsDeleted) {
  Put("/proj/victim.txt", "v\n");
  PlantManifest("{\"/proj/victim.txt\": \"" + DigestOf("v\n") + "\"}");
  EXPECT_EQ(Refusal(), std::string(kDir) + "/" + kSkillManifestName +
                           ": the install manifest lists '/proj/victim.txt', outside the skill "
                           "folder (absolute path)");
  EXPECT_EQ(*fs_.Read("/proj/victim.txt"), "v\n");
  EXPECT_FALSE(fs_.Exists(std::string(kDir) + "/SKILL.md"));  // nothing written either
}

TEST_F(HostileManifestTest, DotDotEntryIsRefusedAndNothingIsDeleted) {
  Put("/proj/victim.txt", "v\n");
  PlantManifest("{\"../../../victim.txt\": \"" + DigestOf("v\n") + "\"}");
  EXPECT_NE(Refusal().find("lists '../../../victim.txt', outside the skill folder ('..' leaves "
                           "the folder)"),
            std::string::npos);
  EXPECT_EQ(*fs_.Read("/proj/victim.txt"), "v\n");
}

TEST_F(HostileManifestTest, EntryWithoutADigestIsMalformed) {
  PlantManifest("{\"SKILL.md\": 7}");
  EXPECT_NE(Refusal().find("entry 'SKILL.md' has no \"sha256:<hex>\" digest"), std::string::npos);
}

TEST_F(HostileManifestTest, ManifestThatIsAFolderOrALinkOrHugeIsRefused) {
  Put(std::string(kDir) + "/" + kSkillManifestName + "/inner", "x");
  EXPECT_NE(Refusal().find("the install manifest is not a regular file (it is a directory)"),
            std::string::npos);
  ASSERT_TRUE(fs_.Remove(std::string(kDir) + "/" + kSkillManifestName).ok());
  fs_.PlantSymlink(std::string(kDir) + "/" + kSkillManifestName, "/proj/elsewhere.json");
  EXPECT_NE(Refusal().find("(it is a symbolic link)"), std::string::npos);
  ASSERT_TRUE(fs_.Remove(std::string(kDir) + "/" + kSkillManifestName).ok());
  PlantManifest("{\"pad\": \"" + std::string(kMaxManifestBytes, 'x') + "\"}");
  EXPECT_NE(Refusal().find("file is larger than the 1 MiB limit"), std::string::npos);
}

TEST_F(HostileManifestTest, LinkWhereAPackFileGoesCountsAsAnEditAndIsNeverReadThrough) {
  Put("/proj/secret", "skill\n");  // same content as the pack's SKILL.md
  fs_.PlantSymlink(std::string(kDir) + "/SKILL.md", "/proj/secret");
  EXPECT_NE(Refusal().find("refusing to overwrite locally edited files: " + std::string(kDir) +
                           "/SKILL.md"),
            std::string::npos);
  request_.force = true;  // --force replaces the link, never writes through it
  ASSERT_TRUE(InstallSkill(fs_, request_).ok());
  EXPECT_EQ(fs_.KindOf(std::string(kDir) + "/SKILL.md"), FileKind::kRegular);
  EXPECT_EQ(*fs_.Read("/proj/secret"), "skill\n");
}

// On the real disk: an entry under a symlinked folder resolves outside the
// skill folder; it is refused and the file it points at survives.
TEST(HostileManifestOnDisk, EntryThroughASymlinkedFolderIsRefused) {
  const fs::path root =
      fs::temp_directory_path() / ("kbuild-skill-test-" + std::to_string(getpid()));
  fs::remove_all(root);
  RealFileSystem real;
  ASSERT_TRUE(real.Write(root / "kb/skills/cuda-kernels/SKILL.md", "skill\n").ok());
  ASSERT_TRUE(real.Write(root / "outside/notes.md", "mine\n").ok());
  const fs::path dir = root / "proj/.claude/skills/cuda-kernels";
  fs::create_directories(dir);
  fs::create_symlink(root / "outside", dir / "refs");
  ASSERT_TRUE(real.Write(dir / kSkillManifestName,
                         "{\"files\": {\"refs/notes.md\": \"sha256:" + Sha256Hex("mine\n") + "\"}}")
                  .ok());
  SkillInstallRequest request;
  request.home = root / "kb";
  request.project_dir = root / "proj";
  auto refused = InstallSkill(real, request);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "'refs/notes.md': refusing a path through the symbolic link " +
                                         (dir / "refs").string());
  std::string kept =
      real.Read(root / "outside/notes.md").ok() ? *real.Read(root / "outside/notes.md") : "";
  EXPECT_EQ(kept, "mine\n");
  fs::remove_all(root);
}

}  // namespace
}  // namespace kb
