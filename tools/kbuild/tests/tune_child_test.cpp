// What kbuild tune reads from its children and how it copies the project:
// JSON documents amid other output, the failure reasons, ptxas's spill
// report, and the project copy (regular files only).
#include "core/tune_child.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/tune_workspace.h"
#include "tune_fakes.h"

namespace kb {
namespace {

using namespace tune_fakes;

TEST(TuneChild, ReadsDocumentsAmidOtherOutput) {
  ProcessResult r;
  r.exit_code = 3;
  r.output =
      "a warning on stderr\n{\n  \"error\": {\"message\": \"undefined\", \"path\": "
      "\"k.cu\", \"line\": 4}\n}\n";
  const ChildResult child = ReadChildResult(r, "build");
  EXPECT_EQ(child.outcome, ChildOutcome::kFailed);
  EXPECT_EQ(child.reason, "k.cu:4: undefined");

  r.output = "Segmentation fault\n";
  r.exit_code = 139;
  EXPECT_EQ(ReadChildResult(r, "bench").reason,
            "kbuild bench exited 139 without a JSON document: Segmentation fault");
  r.exit_code = 0;
  EXPECT_EQ(ReadChildResult(r, "test").outcome, ChildOutcome::kOk);
  r.exit_code = 143;
  EXPECT_EQ(ReadChildResult(r, "test").outcome, ChildOutcome::kStopped);
}

TEST(TuneChild, BenchFailureNamesTheCaseAndProblem) {
  Json doc = BenchDocument(5);
  doc["harness"]["cases"][1]["problems"] = {"physically impossible: 9000 GB/s\nmore"};
  EXPECT_EQ(BenchFailureReason(doc), "gemm/4096x4096 fp32: physically impossible: 9000 GB/s");
}

TEST(TuneChild, SpillsAreTheLargestReported) {
  EXPECT_EQ(SpillBytesInLog(""), 0);
  EXPECT_EQ(SpillBytesInLog("ptxas info : 0 bytes spill stores\n"
                            "ptxas warning : ... 'a', 24 bytes spill stores, 24 bytes spill loads\n"
                            "ptxas warning : ... 'b', 8 bytes spill stores\n"),
            24);
  EXPECT_EQ(SpillBytesInLog("99999999999999 bytes spill stores"), 999999999)
      << "a number too long is read as its last 9 digits, never overflowing";
}

TEST(TuneWorkspace, CopyTakesRegularProjectFilesOnly) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.Write("/p/build.toml", "x").ok());
  ASSERT_TRUE(fs.Write("/p/src/k.cu", "k").ok());
  ASSERT_TRUE(fs.Write("/p/build/cmake/old.o", "o").ok());
  ASSERT_TRUE(fs.Write("/p/results/latest.json", "{}").ok());
  ASSERT_TRUE(fs.Write("/p/.git/HEAD", "ref").ok());
  ASSERT_TRUE(fs.Write("/secret", "s").ok());
  fs.PlantSymlink("/p/src/link.cu", "/secret");
  auto snapshot = SnapshotProject(fs, "/p");
  ASSERT_TRUE(snapshot.ok());
  std::vector<std::filesystem::path> copied;
  for (const auto& [path, content] : snapshot->files) copied.push_back(path);
  EXPECT_EQ(copied, (std::vector<std::filesystem::path>{"build.toml", "src/k.cu"}));
  ASSERT_TRUE(WriteProjectCopy(fs, *snapshot, "/copy").ok());
  EXPECT_EQ(*fs.Read("/copy/src/k.cu"), "k");
}

}  // namespace
}  // namespace kb
