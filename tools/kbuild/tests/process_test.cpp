// RealProcessRunner on real processes (/bin/sh): output, exit codes, the
// timeout, and a grandchild that keeps the output pipe open.
#include "core/process.h"

#include <gtest/gtest.h>

#include <chrono>

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

}  // namespace
}  // namespace kb
