// RealProcessRunner on real processes (/bin/sh): output, exit codes, the
// timeout, a grandchild that keeps the output pipe open, and the output log.
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

TEST(RealProcessRunner, PassesEachOutputLineAsItArrives) {
  std::vector<std::string> lines;
  RunOptions options;
  options.on_line = [&lines](const std::string& line) { lines.push_back(line); };
  const ProcessResult r =
      RealProcessRunner().Run({"sh", "-c", "echo one; echo two >&2; printf 'no newline'"}, options);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "no newline"}));
  EXPECT_EQ(r.output, "one\ntwo\nno newline");
}

TEST(OutputLines, JoinsChunksAndCutsALineThatNeverEnds) {
  std::vector<std::string> lines;
  OutputLines splitter([&lines](const std::string& line) { lines.push_back(line); });
  splitter.Add("peers: a", 8);
  splitter.Add("b\nc", 3);
  splitter.Finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"peers: ab", "c"}));
  lines.clear();
  const std::string endless(OutputLines::kMaxLine + 5, 'x');
  splitter.Add(endless.data(), endless.size());
  splitter.Finish();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), OutputLines::kMaxLine);
  EXPECT_EQ(lines[1], "xxxxx");
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
bool IsRunning(pid_t pid);

// A timed-out child that is itself a runner of other process groups (a nested kbuild) gets
// SIGTERM first, so it can end the groups a SIGKILL of its own group would never reach.
TEST(RealProcessRunner, TimeoutLetsTheChildEndItsOwnProcessGroups) {
  const auto pid_file = std::filesystem::temp_directory_path() /
                        ("kbuild-timeout-grandchild-" + std::to_string(getpid()));
  RunOptions options;
  options.timeout_seconds = 0.5;
  ProcessResult r;
  const std::string script = "setsid sleep 30 & echo $! > '" + pid_file.string() +
                             "'; trap 'kill $!; exit 143' TERM; wait";
  const double seconds = SecondsToRun({"sh", "-c", script}, options, &r);
  EXPECT_LT(seconds, 5.0);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 124);
  std::ifstream in(pid_file);
  pid_t grandchild = 0;
  ASSERT_TRUE(in >> grandchild) << "the child did not start its grandchild";
  for (int i = 0; i < 50 && IsRunning(grandchild); ++i) usleep(20000);
  EXPECT_FALSE(IsRunning(grandchild)) << "the grandchild in its own session outlived the timeout";
  if (IsRunning(grandchild)) kill(grandchild, SIGKILL);
  std::filesystem::remove(pid_file);
}

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

// A unique empty folder under the temp directory.
std::filesystem::path FreshDir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kbuild-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RealProcessRunner, LogGetsTheOutputAppended) {
  const auto dir = FreshDir("log-append");
  std::ofstream(dir / "run.log") << "earlier\n";
  RunOptions options;
  options.log = dir / "run.log";
  const ProcessResult r = RealProcessRunner().Run({"sh", "-c", "echo out; echo err >&2"}, options);
  EXPECT_FALSE(r.log_error.has_value());
  EXPECT_EQ(Slurp(dir / "run.log"), "earlier\nout\nerr\n");
  std::filesystem::remove_all(dir);
}

// A symlink planted where the log goes is refused before anything runs; its target is untouched.
TEST(RealProcessRunner, LogThatIsASymlinkIsRefusedAndNothingRuns) {
  const auto dir = FreshDir("log-symlink");
  std::ofstream(dir / "victim") << "precious\n";
  std::filesystem::create_symlink(dir / "victim", dir / "run.log");
  RunOptions options;
  options.log = dir / "run.log";
  const ProcessResult r =
      RealProcessRunner().Run({"sh", "-c", "touch '" + (dir / "ran").string() + "'"}, options);
  ASSERT_TRUE(r.log_error.has_value());
  EXPECT_EQ(r.log_error->message, "refusing to write through a symbolic link");
  EXPECT_EQ(r.log_error->path, (dir / "run.log").string());
  EXPECT_EQ(Slurp(dir / "victim"), "precious\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "ran"));
  std::filesystem::remove_all(dir);
}

// A full disk under the log is reported; the run itself goes on and its output is complete.
TEST(RealProcessRunner, LogOnAFullDiskIsReportedAndTheRunGoesOn) {
  RunOptions options;
  options.log = "/dev/full";
  const ProcessResult r = RealProcessRunner().Run({"sh", "-c", "echo one; echo two"}, options);
  ASSERT_TRUE(r.log_error.has_value());
  EXPECT_EQ(r.log_error->code, ExitCode::kEnvironment);
  EXPECT_EQ(r.log_error->Located(), "/dev/full: no space left on device");
  EXPECT_EQ(r.output, "one\ntwo\n");
  EXPECT_EQ(r.exit_code, 0);
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
