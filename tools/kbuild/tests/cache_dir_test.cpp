// Where kbuild keeps its per-machine cache, and the shared-temp fallback (no
// HOME) that another user of the machine must not be able to plant.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/paths.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

// Sets or unsets variables for one test and puts the old values back.
class ScopedEnvironment {
 public:
  void Set(const std::string& name, const std::optional<std::string>& value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

class CacheDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kbuild-cache-dir-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    env_.Set("KBUILD_CACHE_DIR", std::nullopt);
    env_.Set("XDG_CACHE_HOME", std::nullopt);
    env_.Set("HOME", std::nullopt);
    env_.Set("TMPDIR", root_.string());
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path Fallback() const { return root_ / ("kbuild-cache-" + std::to_string(geteuid())); }

  ScopedEnvironment env_;
  fs::path root_;
};

TEST_F(CacheDirTest, TheChosenFolderWinsInOrder) {
  env_.Set("HOME", "/home/someone");
  EXPECT_EQ(*CacheDir(), fs::path("/home/someone/.cache/kbuild"));
  env_.Set("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(*CacheDir(), fs::path("/xdg/kbuild"));
  env_.Set("KBUILD_CACHE_DIR", "/cache");
  EXPECT_EQ(*CacheDir(), fs::path("/cache"));
}

TEST_F(CacheDirTest, WithoutHomeItIsThisUsersOwnFolderInTemp) {
  auto dir = CacheDir();
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  EXPECT_EQ(*dir, Fallback());
  struct stat st {};
  ASSERT_EQ(lstat(dir->c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(CacheDirTest, APlantedLinkInTempIsRefused) {
  fs::create_directories(root_ / "theirs");
  fs::create_directory_symlink(root_ / "theirs", Fallback());
  auto dir = CacheDir();
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().code, ExitCode::kUsage);
  EXPECT_EQ(dir.error().path, Fallback().string());
  EXPECT_NE(dir.error().hint.find("KBUILD_CACHE_DIR"), std::string::npos);
}

}  // namespace
}  // namespace kb
