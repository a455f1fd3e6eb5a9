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

}  // namespace
}  // namespace kb
