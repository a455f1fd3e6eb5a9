// results/ and the run folders kbuild tune and optimize make in it.
#include "core/run_folder.h"

#include <gtest/gtest.h>

#include "core/fs.h"

namespace kb {
namespace {

TEST(RunFolder, ANewRunIsNumberedPastTakenNames) {
  MemoryFileSystem fs;
  auto first = NewRunFolder(fs, "/p", "tune", "20261205-021500");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, "/p/results/tune-20261205-021500");
  ASSERT_TRUE(fs.MakeDirectories(*first).ok());
  auto second = NewRunFolder(fs, "/p", "tune", "20261205-021500");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, "/p/results/tune-20261205-021500-2");
}

// The same check as bench's result files (CheckResultsFolder): a planted link or a file where
// results/ goes is refused, naming it.
TEST(RunFolder, AResultsFolderThatIsALinkOrAFileIsRefused) {
  MemoryFileSystem linked;
  linked.PlantSymlink("/p/results", "/elsewhere");
  auto run = NewRunFolder(linked, "/p", "optimize", "20261205-021500");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kUsage);
  EXPECT_EQ(run.error().Located(), "/p/results: the results folder is a symbolic link");

  MemoryFileSystem file;
  ASSERT_TRUE(file.Write("/p/results", "x").ok());
  run = NewRunFolder(file, "/p", "tune", "20261205-021500");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().Located(), "/p/results: the results folder is not a folder");
}

// What a queue worker checks before it writes an attempt's or a variant's tree.
TEST(RunFolder, ASubfolderIsWrittenOnlyWhenMissingOrRealAndHoldingNoLink) {
  MemoryFileSystem fs;
  EXPECT_EQ(RunSubfolderProblem(fs, "/r", "attempts/a1"), "");
  ASSERT_TRUE(fs.Write("/r/attempts/a1/logs/build.log", "x").ok());
  EXPECT_EQ(RunSubfolderProblem(fs, "/r", "attempts/a1"), "");
  fs.PlantSpecialFile("/r/attempts/a1/logs/test.log");
  EXPECT_EQ(RunSubfolderProblem(fs, "/r", "attempts/a1"),
            "/r/attempts/a1/logs/test.log is a FIFO, socket or device, which kbuild never makes "
            "there");
  ASSERT_TRUE(fs.Write("/r/attempts/a2", "x").ok());
  EXPECT_EQ(RunSubfolderProblem(fs, "/r", "attempts/a2"), "/r/attempts/a2 is a regular file");
  fs.PlantSymlink("/r/attempts/a3", "/elsewhere");
  EXPECT_EQ(RunSubfolderProblem(fs, "/r", "attempts/a3"), "/r/attempts/a3 is a symbolic link");
}

}  // namespace
}  // namespace kb
