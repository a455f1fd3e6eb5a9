// The file system seam against what a hostile repository can plant: symlinks
// where kbuild writes, FIFOs and huge files where it reads, and paths that
// try to leave the folder a deletion is confined to.
#include "core/fs.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "core/file_write.h"

namespace kb {
namespace {

class RealFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() / ("kbuild-fs-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Put(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string Slurp(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path root_;
  RealFileSystem real_;
};

TEST_F(RealFsTest, WriteNeverFollowsAPlantedTempFileSymlink) {
  Put(root_ / "victim", "precious\n");
  fs::create_symlink(root_ / "victim", root_ / "build.toml.kbuild-tmp");
  ASSERT_TRUE(real_.Write(root_ / "build.toml", "new\n").ok());
  EXPECT_EQ(Slurp(root_ / "victim"), "precious\n");
  EXPECT_EQ(Slurp(root_ / "build.toml"), "new\n");
}

TEST_F(RealFsTest, WriteReplacesASymlinkAtTheTargetInsteadOfWritingThroughIt) {
  Put(root_ / "victim", "precious\n");
  fs::create_symlink(root_ / "victim", root_ / "build.log");
  ASSERT_TRUE(real_.Write(root_ / "build.log", "log\n").ok());
  EXPECT_EQ(Slurp(root_ / "victim"), "precious\n");
  EXPECT_FALSE(fs::is_symlink(root_ / "build.log"));
  EXPECT_EQ(Slurp(root_ / "build.log"), "log\n");
}

TEST_F(RealFsTest, WriteLeavesOnlyTheTargetWithMode0644LessUmask) {
  const mode_t old = umask(027);
  ASSERT_TRUE(real_.Write(root_ / "out" / "a.json", "{}\n").ok());
  umask(old);
  std::vector<fs::path> names;
  for (const auto& e : fs::directory_iterator(root_ / "out")) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<fs::path>{"a.json"});
  EXPECT_EQ(fs::status(root_ / "out" / "a.json").permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(RealFsTest, WriteOverAFolderIsAnErrorThatKeepsIt) {
  Put(root_ / "results" / "keep.json", "{}");
  Status s = real_.Write(root_ / "results", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "not a regular file (it is a directory)");
  EXPECT_EQ(Slurp(root_ / "results" / "keep.json"), "{}");
}

TEST(WriteFailure, AFullDiskIsAnEnvironmentErrorNamingTheFile) {
  const int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  Status s = WriteAllTo(fd, "log line\n", "build/logs/build.log");
  close(fd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(s.error().Located(), "build/logs/build.log: no space left on device");
  EXPECT_EQ(s.error().hint,
            "free space on the disk holding build/logs (df -h build/logs) and re-run");
  EXPECT_EQ(WriteFailure("r/x.json", EDQUOT).message, "disk quota exceeded");
}

TEST(AppendLog, AppendingToAFullDeviceSaysSo) {
  auto log = AppendLog::Open("/dev/full");
  ASSERT_TRUE(log.ok()) << log.error().Located();
  Status s = log->Append("x\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "no space left on device");
}

TEST_F(RealFsTest, AppendLogRefusesAPlantedSymlink) {
  Put(root_ / "victim", "precious\n");
  fs::create_symlink(root_ / "victim", root_ / "test.log");
  auto log = AppendLog::Open(root_ / "test.log");
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.error().message, "refusing to write through a symbolic link");
  auto fresh = AppendLog::Open(root_ / "fresh.log");
  ASSERT_TRUE(fresh.ok());
  ASSERT_TRUE(fresh->Append("a\n").ok());
  ASSERT_TRUE(fresh->Append("b\n").ok());
  EXPECT_EQ(Slurp(root_ / "fresh.log"), "a\nb\n");
  EXPECT_EQ(Slurp(root_ / "victim"), "precious\n");
}

TEST_F(RealFsTest, ReadingAFifoFailsAtOnceInsteadOfWaitingForAWriter) {
  ASSERT_EQ(mkfifo((root_ / "build.toml").c_str(), 0644), 0);
  auto text = real_.ReadAtMost(root_ / "build.toml", kMaxConfigBytes);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, ExitCode::kUsage);
  EXPECT_EQ(text.error().message, "not a regular file (it is a FIFO, socket or device)");
}

TEST_F(RealFsTest, ReadRefusesFoldersLoopsAndFilesOverTheLimit) {
  fs::create_directories(root_ / "dir");
  EXPECT_EQ(real_.Read(root_ / "dir").error().message, "not a regular file (it is a directory)");
  fs::create_symlink(root_ / "b", root_ / "a");
  fs::create_symlink(root_ / "a", root_ / "b");
  EXPECT_EQ(real_.Read(root_ / "a").error().message, "too many levels of symbolic links");
  Put(root_ / "big.json", std::string(2048, 'x'));
  auto big = real_.ReadAtMost(root_ / "big.json", 1024);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code, ExitCode::kUsage);
  EXPECT_EQ(big.error().Located(),
            (root_ / "big.json").string() + ": file is larger than the 1 KiB limit");
  EXPECT_EQ(*real_.ReadAtMost(root_ / "big.json", 2048), std::string(2048, 'x'));
}

TEST_F(RealFsTest, ReadFollowsASymlinkToARegularFileAndReadsProcFiles) {
  Put(root_ / "real.toml", "x = 1\n");
  fs::create_symlink(root_ / "real.toml", root_ / "build.toml");
  EXPECT_EQ(*real_.Read(root_ / "build.toml"), "x = 1\n");
  auto status = real_.Read("/proc/self/status");  // st_size is 0 for /proc files
  ASSERT_TRUE(status.ok());
  EXPECT_NE(status->find("Name:"), std::string::npos);
}

TEST_F(RealFsTest, RemoveFileBelowDeletesOnlyRegularFilesInsideTheFolder) {
  const fs::path skill = root_ / "skill";
  Put(skill / "old.md", "old\n");
  Put(root_ / "outside" / "secret.md", "secret\n");
  fs::create_symlink(root_ / "outside", skill / "refs");
  fs::create_symlink(root_ / "outside" / "secret.md", skill / "link.md");
  fs::create_directories(skill / "folder" / "inner");

  EXPECT_EQ(real_.RemoveFileBelow(skill, "../outside/secret.md").error().message,
            "path leaves " + skill.string() + ": '..' leaves the folder");
  EXPECT_EQ(real_.RemoveFileBelow(skill, root_ / "outside" / "secret.md").error().message,
            "path leaves " + skill.string() + ": absolute path");
  EXPECT_EQ(real_.RemoveFileBelow(skill, "refs/secret.md").error().message,
            "refusing a path through the symbolic link " + (skill / "refs").string());
  EXPECT_EQ(real_.RemoveFileBelow(skill, "link.md").error().message,
            "not a regular file (it is a symbolic link)");
  EXPECT_EQ(real_.RemoveFileBelow(skill, "folder").error().message,
            "not a regular file (it is a directory)");
  EXPECT_EQ(Slurp(root_ / "outside" / "secret.md"), "secret\n");
  EXPECT_TRUE(fs::is_directory(skill / "folder" / "inner"));
  EXPECT_TRUE(fs::is_symlink(skill / "link.md"));

  EXPECT_TRUE(real_.RemoveFileBelow(skill, "old.md").ok());
  EXPECT_FALSE(fs::exists(skill / "old.md"));
  EXPECT_TRUE(real_.RemoveFileBelow(skill, "gone/never.md").ok());  // absent is fine
}

TEST(MemoryFs, ModelsSymlinksAndSpecialFiles) {
  MemoryFileSystem mem;
  ASSERT_TRUE(mem.Write("/p/victim", "precious").ok());
  mem.PlantSymlink("/p/log", "victim");
  EXPECT_EQ(mem.KindOf("/p/log"), FileKind::kSymlink);
  EXPECT_EQ(*mem.Read("/p/log"), "precious");
  ASSERT_TRUE(mem.Write("/p/log", "log").ok());  // replaces the link
  EXPECT_EQ(mem.KindOf("/p/log"), FileKind::kRegular);
  EXPECT_EQ(*mem.Read("/p/victim"), "precious");

  mem.PlantSpecialFile("/p/fifo");
  EXPECT_EQ(mem.Read("/p/fifo").error().message,
            "not a regular file (it is a FIFO, socket or device)");
  mem.PlantSymlink("/p/a", "/p/b");
  mem.PlantSymlink("/p/b", "/p/a");
  EXPECT_EQ(mem.Read("/p/a").error().message, "too many levels of symbolic links");
  EXPECT_EQ(mem.ReadAtMost("/p/victim", 4).error().message,
            "file is larger than the 4 bytes limit");

  mem.PlantSymlink("/p/skill/refs", "/elsewhere");
  ASSERT_TRUE(mem.Write("/p/skill/refs/x.md", "x").ok());
  EXPECT_FALSE(mem.RemoveFileBelow("/p/skill", "refs/x.md").ok());
  EXPECT_FALSE(mem.RemoveFileBelow("/p/skill", "../victim").ok());
  EXPECT_EQ(*mem.Read("/p/victim"), "precious");
}

// A copy must see a link to refuse it: ListEntries names links (to files and
// to folders) and FIFOs, and never lists what lies behind a linked folder.
TEST_F(RealFsTest, ListEntriesNamesLinksAndSpecialsWithoutFollowing) {
  Put(root_ / "tree/a.txt", "a");
  Put(root_ / "tree/sub/b.txt", "b");
  Put(root_ / "outside/secret.txt", "s");
  fs::create_symlink(root_ / "outside", root_ / "tree/linked_dir");
  fs::create_symlink(root_ / "tree/a.txt", root_ / "tree/linked_file");
  ASSERT_EQ(mkfifo((root_ / "tree/fifo").c_str(), 0600), 0);
  std::vector<std::string> seen;
  for (const auto& e : real_.ListEntries(root_ / "tree")) {
    seen.push_back(e.relative.generic_string() + ":" + std::to_string(static_cast<int>(e.kind)));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"a.txt:1", "fifo:4", "linked_dir:3", "linked_file:3",
                                            "sub/b.txt:1"}));
  EXPECT_TRUE(real_.ListEntries(root_ / "tree/linked_dir").empty());  // a link is no folder
}

TEST_F(RealFsTest, RenameNoReplaceMovesAFolderButNeverOverAnExistingOne) {
  Put(root_ / "new/x.txt", "new");
  Put(root_ / "old/y.txt", "old");
  Status refused = real_.RenameNoReplace(root_ / "new", root_ / "old");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(Slurp(root_ / "old/y.txt"), "old");
  ASSERT_TRUE(real_.RenameNoReplace(root_ / "new", root_ / "moved").ok());
  EXPECT_EQ(Slurp(root_ / "moved/x.txt"), "new");
  EXPECT_FALSE(fs::exists(root_ / "new"));
}

TEST(MemoryFs, ListEntriesAndRenameNoReplaceMatchTheDisk) {
  MemoryFileSystem mem;
  ASSERT_TRUE(mem.Write("/p/tree/a.txt", "a").ok());
  mem.PlantSymlink("/p/tree/link", "/elsewhere");
  ASSERT_TRUE(mem.Write("/p/tree/link/hidden.txt", "h").ok());  // behind the link: not listed
  mem.PlantSpecialFile("/p/tree/fifo");
  const auto entries = mem.ListEntries("/p/tree");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].relative, "a.txt");
  EXPECT_EQ(entries[1].kind, FileKind::kOther);
  EXPECT_EQ(entries[2].kind, FileKind::kSymlink);
  ASSERT_TRUE(mem.Write("/p/other/b.txt", "b").ok());
  EXPECT_FALSE(mem.RenameNoReplace("/p/tree", "/p/other").ok());
  ASSERT_TRUE(mem.RenameNoReplace("/p/tree", "/p/moved").ok());
  EXPECT_EQ(*mem.Read("/p/moved/a.txt"), "a");
  EXPECT_EQ(mem.KindOf("/p/moved/link"), FileKind::kSymlink);
  EXPECT_EQ(mem.KindOf("/p/tree"), FileKind::kMissing);
}

}  // namespace
}  // namespace kb
