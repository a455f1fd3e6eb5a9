// RealProcessRunner on real processes (/bin/sh): output, exit codes, the
// timeout, and a grandchild that keeps the output pipe open.
#include "core/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/stop_signal.h"

namespace kb {
namespace {

double SecondsToRun(const std::vector<std::string>& argv, const RunOptions& options,
                    ProcessResult* result) {
  const auto start = std::chrono::steady_clock::now();
  *result = RealProcessRunner().Run(argv, options);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(RealProcessRunner, CapturesOutputAndExitCode) {
  const ProcessResult r =
      RealProcessRunner().Run({"sh", "-c", "echo out; echo err >&2; exit 3"}, {});
  EXPECT_EQ(r.output, "out\nerr\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.not_found);
}

TEST(RealProcessRunner, MissingProgramIsNotFound) {
  const ProcessResult r = RealProcessRunner().Run({"/nonexistent/kbuild-test-program"}, {});
  EXPECT_TRUE(r.not_found);
}

// The child exits at once; its background grandchild holds stdout for 6 s.
// The run ends about 2 s after the child, not when the grandchild does.
TEST(RealProcessRunner, GrandchildHoldingThePipeDoesNotHoldTheRun) {
  ProcessResult r;
  const double seconds = SecondsToRun({"sh", "-c", "sleep 6 & echo started"}, {}, &r);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(r.output, "started\n");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.timed_out);
}

TEST(RealProcessRunner, TimeoutKillsTheProcessTree) {
  RunOptions options;
  options.timeout_seconds = 0.5;
  ProcessResult r;
  const double seconds = SecondsToRun({"sh", "-c", "sleep 30; echo never"}, options, &r);
  EXPECT_LT(seconds, 3.0);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 124);
  EXPECT_EQ(r.output.find("never"), std::string::npos);
}

// True while `pid` runs (a zombie left for init to reap counts as gone).
bool IsRunning(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return false;
  return state != "Z";
}

// The child sends kbuild (this test process) SIGTERM, as a user would; the runner ends the
// child's whole group, its background grandchild too, well before the 30 s sleep.
TEST(RealProcessRunner, StopSignalEndsTheWholeProcessGroup) {
  InstallStopHandlers();
  const auto pid_file =
      std::filesystem::temp_directory_path() / ("kbuild-stop-test-" + std::to_string(getpid()));
  ProcessResult r;
  const double seconds = SecondsToRun({"sh", "-c",
                                       "sleep 30 & echo $! > '" + pid_file.string() +
                                           "'; kill -TERM " + std::to_string(getpid()) + "; wait"},
                                      {}, &r);
  ClearStopSignal();
  EXPECT_LT(seconds, 8.0);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.exit_code, 143);
  pid_t grandchild = 0;
  std::ifstream(pid_file) >> grandchild;
  std::filesystem::remove(pid_file);
  ASSERT_GT(grandchild, 0);
  for (int i = 0; i < 50 && IsRunning(grandchild); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(IsRunning(grandchild));
}

TEST(RealProcessRunner, NothingStartsAfterAStopSignal) {
  InstallStopHandlers();
  raise(SIGINT);
  const auto marker =
      std::filesystem::temp_directory_path() / ("kbuild-not-started-" + std::to_string(getpid()));
  const ProcessResult r = RealProcessRunner().Run({"touch", marker.string()}, {});
  ClearStopSignal();
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

}  // namespace
}  // namespace kb
