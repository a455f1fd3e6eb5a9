// Folders kbuild names itself in a shared /tmp: made here with mode 0700, or
// accepted only when they already are this user's real folder.
#include "core/private_folder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kb {
namespace {

namespace fs = std::filesystem;

class PrivateFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kbuild-private-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(PrivateFolderTest, AMissingFolderIsMadeForThisUserOnly) {
  const fs::path dir = root_ / "a" / "scratch";
  ASSERT_TRUE(EnsurePrivateFolder(dir, "hint").ok());
  struct stat st {};
  ASSERT_EQ(lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(EnsurePrivateFolder(dir, "hint").ok()) << "an existing folder of ours is kept";
}

TEST_F(PrivateFolderTest, ALinkOrAFileWhereTheFolderGoesIsRefused) {
  fs::create_directories(root_ / "theirs");
  fs::create_directory_symlink(root_ / "theirs", root_ / "link");
  std::ofstream(root_ / "file") << "x";
  for (const char* name : {"link", "file"}) {
    auto made = EnsurePrivateFolder(root_ / name, "pass --scratch");
    ASSERT_FALSE(made.ok()) << name;
    EXPECT_EQ(made.error().code, ExitCode::kUsage);
    EXPECT_EQ(made.error().path, (root_ / name).string());
    EXPECT_EQ(made.error().hint, "pass --scratch");
  }
  EXPECT_TRUE(fs::is_empty(root_ / "theirs"));
}

}  // namespace
}  // namespace kb
