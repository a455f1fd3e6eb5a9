#include "core/skill_install.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(
      *fs_.Read(
          "/proj/.claude/skills/cuda-kernels/templates/rmsnorm/build.toml"),
      "toml\n");
  EXPECT_TRUE(fs_.Exists(
      "/proj/.claude/skills/cuda-kernels/.kbuild-skill-manifest.json"));
}

TEST_F(SkillInstallTest, AgentFoldersProjectAndGlobal) {
  EXPECT_EQ(SkillDestination(SkillAgent::kCodex, false, "/p"),
            "/p/.codex/skills/cuda-kernels");
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
  EXPECT_EQ(r.removed,
            (std::vector<std::filesystem::path>{"references/old.md"}));
  EXPECT_EQ(*fs_.Read("/proj/.claude/skills/cuda-kernels/SKILL.md"),
            "skill v2\n");
  EXPECT_FALSE(
      fs_.Exists("/proj/.claude/skills/cuda-kernels/references/old.md"));
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
  EXPECT_EQ(*fs_.Read("/proj/.claude/skills/cuda-kernels/references/guide.md"),
            "guide v2\n");
}

TEST_F(SkillInstallTest, FilesOfUnknownOriginCountAsEdits) {
  Put("/proj/.claude/skills/cuda-kernels/SKILL.md", "someone else's\n");
  auto refused = InstallSkill(fs_, request_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ExitCode::kUsage);
}

}  // namespace
}  // namespace kb
