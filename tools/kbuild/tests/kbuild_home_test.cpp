#include "core/kbuild_home.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kb {
namespace {

namespace fs = std::filesystem;

// A prefix as `cmake --install` lays it out: bin/ and share/kbuild/build.toml.in.
fs::path MakePrefix(const std::string& name, bool with_data) {
  const fs::path prefix = fs::path(::testing::TempDir()) / name;
  fs::remove_all(prefix);
  fs::create_directories(prefix / "bin");
  if (with_data) {
    fs::create_directories(prefix / kInstalledDataDir);
    std::ofstream(prefix / kInstalledDataDir / "build.toml.in") << "[general]\n";
  }
  return prefix;
}

TEST(KbuildHome, AnInstalledBinaryFindsShareKbuildBesideIt) {
  const fs::path prefix = MakePrefix("kb-prefix", true);
  auto home = InstalledHomeFor(prefix / "bin");
  ASSERT_TRUE(home.has_value());
  EXPECT_EQ(*home, (prefix / "share" / "kbuild").lexically_normal());
}

TEST(KbuildHome, AMovedPrefixStillFindsItsData) {
  const fs::path before = MakePrefix("kb-before", true);
  const fs::path after = fs::path(::testing::TempDir()) / "kb-after";
  fs::remove_all(after);
  fs::rename(before, after);
  auto home = InstalledHomeFor(after / "bin");
  ASSERT_TRUE(home.has_value());
  EXPECT_EQ(*home, (after / "share" / "kbuild").lexically_normal());
}

TEST(KbuildHome, ABuildTreeBinaryHasNoInstalledHome) {
  EXPECT_FALSE(InstalledHomeFor(MakePrefix("kb-build-tree", false) / "bin").has_value());
}

TEST(KbuildHome, TheTestBinaryIsNotAnInstallSoTheSourceTreeIsUsed) {
  if (std::getenv("KBUILD_HOME")) GTEST_SKIP() << "KBUILD_HOME is set in this environment";
  EXPECT_FALSE(InstalledExecutableDir().has_value());
  const KbuildHomeChoice choice = ChooseKbuildHome();
  EXPECT_EQ(choice.found_by, "source tree");
  EXPECT_EQ(choice.path, fs::path(KBUILD_SOURCE_ROOT));
}

}  // namespace
}  // namespace kb
