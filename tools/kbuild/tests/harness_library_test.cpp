// The shared harness library: its key follows the harness's sources, torch/CUDA and the debug
// flag and nothing else; a complete folder is reused without running anything; a failed build
// leaves no stamp and names its log; callers at the same time build it once. The lock is a real
// flock, so the cache folder is a real temporary one (the other files live in memory, except in
// the concurrency test).
#include "core/harness_library.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace kb {
namespace {

namespace stdfs = std::filesystem;

const stdfs::path kHarness = "/kb/tools/harness";

HarnessLibraryInputs Inputs() {
  return {kHarness, {{"torch", {{"version", "2.11.0+cu130"}}}, {"cuda", "V13.0.88"}}, false};
}

void PutHarness(FileSystem& fs, const stdfs::path& harness = kHarness) {
  (void)fs.Write(harness / "harness.cmake", "add_library(kbuild_harness_core STATIC ...)\n");
  (void)fs.Write(harness / "include/kbuild/harness/op_test.h", "#pragma once\n");
  (void)fs.Write(harness / "src/stats.cpp", "int Median();\n");
  (void)fs.Write(harness / "src/timing.cpp", "int Time();\n");
}

std::string Key(const FileSystem& fs, const HarnessLibraryInputs& inputs = Inputs()) {
  auto key = HarnessLibraryKey(fs, inputs);
  EXPECT_TRUE(key.ok()) << key.error().Located();
  return key.ok() ? *key : "";
}

TEST(HarnessLibraryKey, FollowsTheHarnessSourcesTorchAndDebugOnly) {
  MemoryFileSystem fs;
  PutHarness(fs);
  const std::string key = Key(fs);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(Key(fs), key) << "the same inputs, the same key";

  (void)fs.Write(kHarness / "tests/stats_test.cpp", "TEST(x, y) {}\n");
  (void)fs.Write(kHarness / "README.md", "# harness\n");
  EXPECT_EQ(Key(fs), key) << "the harness's own tests and docs are not compiled into it";

  MemoryFileSystem moved;
  PutHarness(moved, "/elsewhere/tools/harness");
  HarnessLibraryInputs elsewhere = Inputs();
  elsewhere.harness_dir = "/elsewhere/tools/harness";
  EXPECT_EQ(Key(moved, elsewhere), key) << "the same sources in another checkout";

  HarnessLibraryInputs other_torch = Inputs();
  other_torch.toolchain_key["torch"]["version"] = "2.10.0+cu128";
  EXPECT_NE(Key(fs, other_torch), key);
  HarnessLibraryInputs debug = Inputs();
  debug.debug = true;
  EXPECT_NE(Key(fs, debug), key) << "a debug build gets its own library";

  for (const char* file : {"harness.cmake", "src/timing.cpp", "include/kbuild/harness/op_test.h"}) {
    MemoryFileSystem edited;
    PutHarness(edited);
    (void)edited.Write(kHarness / file, "// edited\n");
    EXPECT_NE(Key(edited), key) << file;
  }
  MemoryFileSystem added;
  PutHarness(added);
  (void)added.Write(kHarness / "src/new.cpp", "");
  EXPECT_NE(Key(added), key) << "a new source file";
}

TEST(HarnessLibraryKey, AHarnessFileTooLargeToReadIsNamed) {
  MemoryFileSystem fs;
  PutHarness(fs);
  (void)fs.Write(kHarness / "src/huge.cpp", std::string(2 << 20, 'x'));
  auto key = HarnessLibraryKey(fs, Inputs());
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.error().message.find("/kb/tools/harness/src/huge.cpp"), std::string::npos)
      << key.error().message;
  EXPECT_NE(key.error().hint.find("KBUILD_HOME"), std::string::npos) << key.error().hint;
}

TEST(HarnessLibraryKey, FolderIsTheCacheHarnessAndSixteenHexDigits) {
  MemoryFileSystem fs;
  PutHarness(fs);
  auto dir = HarnessLibraryDir(fs, Inputs(), "/cache");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(*dir, stdfs::path("/cache/harness") / Key(fs).substr(0, 16));
}

class HarnessLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = stdfs::temp_directory_path() /
             ("kbuild-harness-library-test-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    stdfs::remove_all(cache_);
  }
  void TearDown() override { stdfs::remove_all(cache_); }

  HarnessLibraryBuild Build() {
    HarnessLibraryBuild b;
    b.dir = cache_ / "harness" / "0123456789abcdef";
    b.harness_cmake = kHarness / "harness.cmake";
    b.torch.version = "2.11.0+cu130";
    b.torch.torch_dir = "/venv/torch";
    b.torch.found_by = "python";
    b.nvcc = "/cuda/bin/nvcc";
    b.progress = [this](const std::string& line) { progress_.push_back(line); };
    return b;
  }

  // Configure succeeds; the build calls `during_build` (may be empty), then writes both
  // libraries through `fs`.
  static FakeProcessRunner::Handler Building(FileSystem& fs, const stdfs::path& dir,
                                             std::function<void()> during_build = {}) {
    return [&fs, dir, during_build](const std::vector<std::string>& argv, const RunOptions&) {
      ProcessResult r;
      r.exit_code = 0;
      if (argv[1] == "--build") {
        if (during_build) during_build();
        (void)fs.Write(dir / "libkbuild_harness_core.a", "core");
        (void)fs.Write(dir / "libkbuild_harness.a", "harness");
        r.output =
            "[1/3] Building CXX object CMakeFiles/kbuild_harness.dir/timing.cpp.o\n"
            "[2/3] Building CXX object CMakeFiles/kbuild_harness.dir/case.cpp.o\n"
            "[3/3] Linking CXX static library /c/libkbuild_harness.a\n";
      }
      return r;
    };
  }

  stdfs::path cache_;
  std::vector<std::string> progress_;
};

TEST_F(HarnessLibraryTest, BuildsOnceThenACompleteFolderRunsNothing) {
  MemoryFileSystem fs;
  const HarnessLibraryBuild b = Build();
  FakeProcessRunner runner(Building(fs, b.dir));
  ASSERT_TRUE(EnsureHarnessLibrary(fs, runner, b).ok());

  ASSERT_EQ(runner.calls.size(), 2u);
  const std::string dir = b.dir.string();
  EXPECT_EQ(runner.calls[0],
            (std::vector<std::string>{"cmake", "-S", dir + "/src", "-B", dir + "/build", "-G",
                                      "Ninja", "-DCMAKE_CUDA_COMPILER=/cuda/bin/nvcc"}));
  EXPECT_EQ(runner.calls[1],
            (std::vector<std::string>{"cmake", "--build", dir + "/build", "--target",
                                      "kbuild_harness_core", "kbuild_harness"}));
  EXPECT_EQ(*fs.Read(b.dir / "src/CMakeLists.txt"), RenderHarnessLibraryCMake(b));
  EXPECT_TRUE(fs.Exists(b.dir / kHarnessLibraryStamp));
  EXPECT_TRUE(fs.Exists(b.dir / "build.log"));
  EXPECT_EQ(progress_.front(),
            "building the shared harness library (once per torch and kbuild version): " + dir);
  EXPECT_EQ(progress_.back().rfind("shared harness library: compile 2 files, link: ", 0), 0u)
      << progress_.back();

  progress_.clear();
  ASSERT_TRUE(EnsureHarnessLibrary(fs, runner, b).ok());
  EXPECT_EQ(runner.calls.size(), 2u) << "complete: nothing runs";
  EXPECT_TRUE(progress_.empty()) << "and nothing is said";
}

TEST_F(HarnessLibraryTest, AStampWithoutItsLibrariesIsBuiltAgain) {
  MemoryFileSystem fs;
  const HarnessLibraryBuild b = Build();
  (void)fs.Write(b.dir / kHarnessLibraryStamp, "kbuild 0.1.0\n");
  (void)fs.Write(b.dir / "libkbuild_harness_core.a", "core");
  FakeProcessRunner runner(Building(fs, b.dir));
  ASSERT_TRUE(EnsureHarnessLibrary(fs, runner, b).ok());
  EXPECT_EQ(runner.calls.size(), 2u);
  EXPECT_TRUE(fs.Exists(b.dir / "libkbuild_harness.a"));
}

TEST_F(HarnessLibraryTest, ACompileErrorLeavesNoStampAndNamesTheLog) {
  MemoryFileSystem fs;
  const HarnessLibraryBuild b = Build();
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r;
    r.exit_code = argv[1] == "--build" ? 1 : 0;
    if (argv[1] == "--build") {
      r.output = "/kb/tools/harness/src/timing.cpp:12:3: error: 'x' was not declared\n";
    }
    return r;
  });
  Status s = EnsureHarnessLibrary(fs, runner, b);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ExitCode::kBuildError);
  EXPECT_EQ(s.error().Located(), "/kb/tools/harness/src/timing.cpp:12:3: 'x' was not declared");
  EXPECT_NE(s.error().hint.find((b.dir / "build.log").string()), std::string::npos)
      << s.error().hint;
  EXPECT_FALSE(fs.Exists(b.dir / kHarnessLibraryStamp));

  ASSERT_FALSE(EnsureHarnessLibrary(fs, runner, b).ok());
  EXPECT_EQ(runner.calls.size(), 4u) << "the next run tries again";
}

TEST_F(HarnessLibraryTest, AConfigureFailureShowsCMakesLastLines) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 1;
    r.output = "CMake Error at harness.cmake:74 (find_package):\n  Could not find benchmark\n";
    return r;
  });
  Status s = EnsureHarnessLibrary(fs, runner, Build());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ExitCode::kBuildError);
  EXPECT_EQ(s.error().message, "cmake configure failed");
  EXPECT_NE(s.error().detail.find("Could not find benchmark"), std::string::npos);
  EXPECT_EQ(runner.calls.size(), 1u);
}

TEST_F(HarnessLibraryTest, CallersAtTheSameTimeBuildItOnce) {
  RealFileSystem fs;
  const HarnessLibraryBuild b = Build();
  std::atomic<int> builds = 0;
  std::atomic<bool> one_waits = false;
  // The build lasts until the other caller is waiting for it (or 10 s), so the two overlap.
  auto build = [&] {
    ++builds;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!one_waits && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  std::vector<std::string> said[2];
  std::vector<Status> results(2);
  std::vector<std::thread> callers;
  for (int i = 0; i < 2; ++i) {
    callers.emplace_back([&, i] {
      FakeProcessRunner runner(Building(fs, b.dir, build));  // one each, as each kbuild has
      HarnessLibraryBuild mine = b;
      mine.progress = [&, i](const std::string& line) {
        said[i].push_back(line);
        if (line.starts_with("waiting")) one_waits = true;
      };
      results[i] = EnsureHarnessLibrary(fs, runner, mine);
    });
  }
  for (auto& caller : callers) caller.join();
  for (const Status& s : results) ASSERT_TRUE(s.ok()) << s.error().Located();
  EXPECT_EQ(builds.load(), 1);
  ASSERT_TRUE(one_waits.load());
  EXPECT_TRUE(fs.Exists(b.dir / kHarnessLibraryStamp));
  const auto& waiter = said[0].size() == 1 ? said[0] : said[1];
  ASSERT_EQ(waiter.size(), 1u);
  // "(pid N)" too, once the holder has written it into the lock file.
  EXPECT_TRUE(waiter[0].starts_with("waiting for another kbuild") &&
              waiter[0].ends_with(" to build the shared harness library"))
      << "it waited, then found the library complete";
}

TEST_F(HarnessLibraryTest, CMakeSetsTheProjectsTorchVariablesThenIncludesTheHarness) {
  HarnessLibraryBuild b = Build();
  b.ccache = "/usr/bin/ccache";
  const std::string text = RenderHarnessLibraryCMake(b);
  EXPECT_NE(text.find("project(kbuild_harness_library LANGUAGES CXX CUDA)"), std::string::npos);
  EXPECT_NE(text.find("set(CMAKE_CXX_COMPILER_LAUNCHER [[/usr/bin/ccache]])"), std::string::npos);
  EXPECT_NE(text.find("set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY [[" + b.dir.string() + "]])"),
            std::string::npos)
      << "the libraries where KBUILD_HARNESS_PREBUILT_DIR points";
  const size_t torch = text.find("set(KBUILD_TORCH_LIBRARY_DIR [[/venv/torch/lib]])");
  const size_t include = text.find("include([[/kb/tools/harness/harness.cmake]])");
  ASSERT_NE(torch, std::string::npos) << text;
  ASSERT_NE(include, std::string::npos) << text;
  EXPECT_LT(torch, include);
  EXPECT_EQ(text.find("-O0 -g"), std::string::npos);
  b.debug = true;
  EXPECT_NE(RenderHarnessLibraryCMake(b).find("add_compile_options(-O0 -g)"), std::string::npos);
}

}  // namespace
}  // namespace kb
