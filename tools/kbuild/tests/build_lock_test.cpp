// BuildLock on a real file: a second holder is refused with the first one's
// pid, command and start time; releasing the first lets the next one in; Wait
// waits for it instead.
#include "core/build_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

namespace kb {
namespace {

class BuildLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kbuild-lock-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

TEST_F(BuildLockTest, SecondHolderIsRefusedWithTheFirstOnesName) {
  auto first = BuildLock::Acquire(dir_ / "build", "kbuild test");
  ASSERT_TRUE(first.ok()) << first.error().Located();
  auto second = BuildLock::Acquire(dir_ / "build", "kbuild build");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ExitCode::kBusy);
  const std::string& message = second.error().message;
  EXPECT_EQ(message.rfind(
                "another kbuild (pid " + std::to_string(getpid()) + ", 'kbuild test', started ", 0),
            0u)
      << message;
  EXPECT_NE(message.find(") is building this project"), std::string::npos) << message;
  EXPECT_EQ(second.error().path, (dir_ / "build" / ".kbuild.lock").string());
  EXPECT_NE(second.error().hint.find("wait for it or stop it"), std::string::npos);
}

TEST_F(BuildLockTest, ReleasedLockLetsTheNextOneIn) {
  {
    auto first = BuildLock::Acquire(dir_ / "build", "kbuild test");
    ASSERT_TRUE(first.ok());
  }
  auto second = BuildLock::Acquire(dir_ / "build", "kbuild bench");
  ASSERT_TRUE(second.ok()) << second.error().Located();
  std::ifstream file(dir_ / "build" / ".kbuild.lock");
  std::string first_line;
  std::getline(file, first_line);
  EXPECT_EQ(first_line, "pid=" + std::to_string(getpid()));
}

// A symlink planted as the lock file must not redirect kbuild's write.
TEST_F(BuildLockTest, SymlinkedLockFileIsRefused) {
  std::filesystem::create_directories(dir_ / "build");
  std::ofstream(dir_ / "elsewhere") << "keep\n";
  std::filesystem::create_symlink(dir_ / "elsewhere", dir_ / "build" / ".kbuild.lock");
  auto lock = BuildLock::Acquire(dir_ / "build", "kbuild build");
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.error().message.find("symbolic link"), std::string::npos) << lock.error().message;
  std::ifstream kept(dir_ / "elsewhere");
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "keep");
}

// kbuild, CMake and Ninja write the whole build tree: build/ planted as a
// link, or a link in it, is refused before anything is written there.
TEST_F(BuildLockTest, ABuildFolderThatIsOrHoldsALinkIsRefused) {
  const std::filesystem::path elsewhere = dir_ / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::filesystem::create_directories(dir_ / "project");
  std::filesystem::create_symlink(elsewhere, dir_ / "project" / "build");
  const std::filesystem::path inner = dir_ / "inner" / "build" / "CMakeFiles";
  std::filesystem::create_directories(inner.parent_path());
  std::filesystem::create_symlink(elsewhere, inner);
  for (const auto& [build, link] :
       {std::pair{dir_ / "project" / "build", dir_ / "project" / "build"},
        std::pair{inner.parent_path(), inner}}) {
    auto lock = BuildLock::Acquire(build, "kbuild build");
    ASSERT_FALSE(lock.ok()) << build;
    EXPECT_EQ(lock.error().code, ExitCode::kUsage);
    EXPECT_EQ(lock.error().path, link.string());
    EXPECT_NE(lock.error().message.find("symbolic link"), std::string::npos);
  }
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
}

// The shared harness library's lock: the next one waits for the holder instead of failing.
TEST_F(BuildLockTest, WaitTakesTheLockOnceTheHolderReleasesIt) {
  const std::filesystem::path lock_file = dir_ / "harness" / "0123.lock";
  std::optional<Expected<BuildLock>> first = BuildLock::Wait(lock_file, "kbuild test", {});
  ASSERT_TRUE(first->ok()) << first->error().Located();
  std::atomic<bool> taken = false;
  std::string holder;
  std::thread second([&] {
    auto lock = BuildLock::Wait(lock_file, "kbuild bench",
                                [&holder](const std::string& pid) { holder = pid; });
    taken = lock.ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(taken.load()) << "still held";
  first.reset();
  second.join();
  EXPECT_TRUE(taken.load());
  EXPECT_EQ(holder, std::to_string(getpid()));
}

}  // namespace
}  // namespace kb
