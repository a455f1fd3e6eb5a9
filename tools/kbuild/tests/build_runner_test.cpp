#include "core/build_runner.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "core/file_write.h"

namespace kb {
namespace {

BuildRequest Request() {
  BuildRequest r;
  r.paths = MakeBuildPaths("/p");
  r.cmake_lists = "project(x)\n";
  r.registration_h = "#pragma once\n";
  r.toolchain_key = {{"torch", "2.11.0+cu130"}};
  r.nvcc = "/cuda/bin/nvcc";
  r.target = "kbuild_ops";
  return r;
}

// Configure writes build.ninja; the build compiles one file and links.
FakeProcessRunner::Handler Succeeding(MemoryFileSystem& fs) {
  return [&fs](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    if (argv[1] == "-S") (void)fs.Write(argv[2] + "/build.ninja", "");
    if (argv[1] == "--build") {
      r.output = "[1/2] Building CUDA object a.cu.o\n[2/2] Linking CXX shared library x.so\n";
    }
    return r;
  };
}

TEST(BuildRunner, ConfiguresOnceThenOnlyBuilds) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(Succeeding(fs));
  auto first = RunBuild(fs, runner, Request());
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->configured);
  EXPECT_EQ(first->compiled, 1);
  EXPECT_TRUE(first->linked);
  EXPECT_EQ(first->log, "build/logs/build.log");
  EXPECT_EQ(*fs.Read("/p/build/cmake/include/registration.h"), "#pragma once\n");
  EXPECT_EQ(runner.calls.size(), 2u);

  auto second = RunBuild(fs, runner, Request());
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->configured);
  ASSERT_EQ(runner.calls.size(), 3u);
  EXPECT_EQ(runner.calls[2][1], "--build");
}

TEST(BuildRunner, OtherToolchainWipesBuildCmake) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(Succeeding(fs));
  ASSERT_TRUE(RunBuild(fs, runner, Request()).ok());
  (void)fs.Write("/p/build/cmake/CMakeFiles/stale.o", "x");
  BuildRequest other = Request();
  other.toolchain_key = {{"torch", "2.10.0+cu128"}};
  auto outcome = RunBuild(fs, runner, other);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->wipe_reason, "build/cmake was configured for another torch/CUDA");
  EXPECT_TRUE(outcome->configured);
  EXPECT_FALSE(fs.Exists("/p/build/cmake/CMakeFiles/stale.o"));
}

// CMake's cache holds absolute paths: a project copied with its build/ folder
// must regenerate build/cmake instead of failing in configure.
TEST(BuildRunner, ProjectCopiedWithItsBuildFolderReconfigures) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(Succeeding(fs));
  ASSERT_TRUE(RunBuild(fs, runner, Request()).ok());
  (void)fs.Write("/q/build/cmake/kbuild-key.json", *fs.Read("/p/build/cmake/kbuild-key.json"));
  (void)fs.Write("/q/build/cmake/build.ninja", "");
  BuildRequest copy = Request();
  copy.paths = MakeBuildPaths("/q");
  auto outcome = RunBuild(fs, runner, copy);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->wipe_reason,
            "build/cmake was configured in another folder (/p/build/cmake; the project was "
            "copied or moved)");
  EXPECT_TRUE(outcome->configured);

  auto again = RunBuild(fs, runner, copy);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->wipe_reason, "");
  EXPECT_FALSE(again->configured);
}

TEST(BuildRunner, CompileFailureIsExit3WithFirstError) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([&fs](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    if (argv[1] == "-S") (void)fs.Write("/p/build/cmake/build.ninja", "");
    if (argv[1] == "--build") {
      r.exit_code = 1;
      r.output = "/p/k.cu(7): error: expected a \";\"\n";
    }
    return r;
  });
  auto outcome = RunBuild(fs, runner, Request());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, ExitCode::kBuildError);
  EXPECT_EQ(outcome.error().Located(), "k.cu:7: expected a \";\"");
  EXPECT_NE(outcome.error().hint.find("build/logs/build.log"), std::string::npos);
}

// A build that succeeded but whose log hit a full disk is exit 4 naming the log, not a success
// whose log silently lacks its end.
TEST(BuildRunner, LogOnAFullDiskIsAnEnvironmentErrorNamingTheLog) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([&fs](const std::vector<std::string>& argv, const RunOptions& run) {
    ProcessResult r;
    r.exit_code = 0;
    if (argv[1] == "-S") (void)fs.Write("/p/build/cmake/build.ninja", "");
    if (argv[1] == "--build") r.log_error = WriteFailure(*run.log, ENOSPC);
    return r;
  });
  auto outcome = RunBuild(fs, runner, Request());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(outcome.error().Located(), "/p/build/logs/build.log: no space left on device");
}

TEST(BuildRunner, CountsNinjaSteps) {
  int compiled = 0;
  bool linked = false;
  CountBuildSteps("ninja: no work to do.\n", &compiled, &linked);
  EXPECT_EQ(compiled, 0);
  EXPECT_FALSE(linked);
}

}  // namespace
}  // namespace kb
