// The harness's own writes into a build/ folder it does not control: a planted
// symlink is never written through, a full disk is named, nothing is half-written.
#include "../src/file_write.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kbuild/harness/results.h"

namespace kb::harness {
namespace {

namespace fs = std::filesystem;

class HarnessFileWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("harness-write-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "victim") << "precious\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Slurp(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path dir_;
};

TEST_F(HarnessFileWrite, DocumentReplacesAPlantedSymlinkWithoutWritingThroughIt) {
  fs::create_symlink(dir_ / "victim", dir_ / "b.json");
  std::string error;
  ASSERT_TRUE(WriteJsonFile((dir_ / "b.json").string(), {{"a", 1}}, &error)) << error;
  EXPECT_FALSE(fs::is_symlink(dir_ / "b.json"));
  EXPECT_EQ(Slurp(dir_ / "b.json"), "{\n  \"a\": 1\n}\n");
  EXPECT_EQ(Slurp(dir_ / "victim"), "precious\n");
}

// The old predictable name: a symlink at b.json.tmp must not receive the document.
TEST_F(HarnessFileWrite, DocumentIgnoresASymlinkAtThePredictableTempName) {
  fs::create_symlink(dir_ / "victim", dir_ / "b.json.tmp");
  std::string error;
  ASSERT_TRUE(ReplaceFile((dir_ / "b.json").string(), "new\n", &error)) << error;
  EXPECT_EQ(Slurp(dir_ / "b.json"), "new\n");
  EXPECT_EQ(Slurp(dir_ / "victim"), "precious\n");
  int entries = 0;  // no temp file left behind
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 3);
}

TEST_F(HarnessFileWrite, JsonLineRefusesAPlantedSymlink) {
  fs::create_symlink(dir_ / "victim", dir_ / "t.jsonl");
  const std::string path = (dir_ / "t.jsonl").string();
  std::string error;
  EXPECT_FALSE(AppendJsonLine(path, {{"a", 1}}, &error));
  EXPECT_EQ(error, path +
                       ": refusing to write through a symbolic link\nhint: remove the link; the "
                       "harness writes its own results here");
  EXPECT_EQ(Slurp(dir_ / "victim"), "precious\n");
}

TEST(HarnessFileWriteErrors, FullDiskIsNamed) {
  std::string error;
  EXPECT_FALSE(AppendToFile("/dev/full", "x\n", &error));
  EXPECT_EQ(error,
            "/dev/full: no space left on device\nhint: free space on the disk holding /dev "
            "(df -h /dev) and re-run");
}

TEST(HarnessFileWriteErrors, MissingFolderNamesTheFileAndTheFolder) {
  std::string error;
  EXPECT_FALSE(WriteJsonFile("/nonexistent-dir/x.json", {{"a", 1}}, &error));
  EXPECT_EQ(error,
            "/nonexistent-dir/x.json: cannot write results: No such file or directory\nhint: check "
            "that /nonexistent-dir exists and is writable");
}

// A kernel or case name with invalid UTF-8 is written (as U+FFFD), not thrown on.
TEST_F(HarnessFileWrite, InvalidUtf8IsReplacedNotThrown) {
  const std::string path = (dir_ / "t.jsonl").string();
  std::string error;
  ASSERT_TRUE(AppendJsonLine(path, {{"case", std::string("bad\xff name")}}, &error)) << error;
  EXPECT_EQ(Slurp(path), "{\"case\":\"bad\xef\xbf\xbd name\"}\n");
}

}  // namespace
}  // namespace kb::harness
