#include "core/sanitizer_output.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(SanitizerOutput, CountsErrorsAndKeepsTheFirstBlockWithoutHostFrames) {
  const std::string output =
      "========= COMPUTE-SANITIZER\n"
      "[ RUN      ] ScaleAdd.All\n"
      "========= Invalid __global__ read of size 16 bytes\n"
      "=========     at scale_add_kernel(...)+0x70 in scale_add.cu:42\n"
      "=========     by thread (3,0,0) in block (0,0,0)\n"
      "=========     Address 0x7f00 is out of bounds\n"
      "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
      "=========         Host Frame: cuLaunchKernel [0x1234]\n"
      "=========\n"
      "========= Invalid __global__ read of size 16 bytes\n"
      "=========     at scale_add_kernel(...)+0x70 in scale_add.cu:42\n"
      "=========\n"
      "========= ERROR SUMMARY: 2 errors\n";
  const auto findings = ParseSanitizerOutput(output);
  ASSERT_TRUE(findings.has_value());
  EXPECT_EQ(findings->errors, 2);
  EXPECT_EQ(findings->first_error,
            "Invalid __global__ read of size 16 bytes\n"
            "  at scale_add_kernel(...)+0x70 in scale_add.cu:42\n"
            "  by thread (3,0,0) in block (0,0,0)\n"
            "  Address 0x7f00 is out of bounds\n");
}

// racecheck has its own summary line; GoogleTest's "[==========]" banner is
// not a sanitizer line and must not become the excerpt.
TEST(SanitizerOutput, ReadsTheRacecheckSummaryAndIgnoresGoogleTestBanners) {
  const std::string output =
      "========= COMPUTE-SANITIZER\n"
      "[==========] Running 1 test from 1 test suite.\n"
      "========= Error: Race reported between Write access at race_kernel+0x90 in race.cu:12\n"
      "=========     and Read access at race_kernel+0xb0 in race.cu:14 [32 hazards]\n"
      "=========\n"
      "[==========] 1 test from 1 test suite ran. (5 ms total)\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
  const auto findings = ParseSanitizerOutput(output);
  ASSERT_TRUE(findings.has_value());
  EXPECT_EQ(findings->errors, 1);
  EXPECT_EQ(findings->first_error,
            "Error: Race reported between Write access at race_kernel+0x90 in race.cu:12\n"
            "  and Read access at race_kernel+0xb0 in race.cu:14 [32 hazards]\n");
  const auto clean = ParseSanitizerOutput(
      "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n");
  ASSERT_TRUE(clean.has_value());
  EXPECT_EQ(clean->errors, 0);
}

TEST(SanitizerOutput, CleanRunHasZeroErrors) {
  const auto findings =
      ParseSanitizerOutput("========= COMPUTE-SANITIZER\nok\n========= ERROR SUMMARY: 0 errors\n");
  ASSERT_TRUE(findings.has_value());
  EXPECT_EQ(findings->errors, 0);
  EXPECT_EQ(findings->first_error, "");
}

TEST(SanitizerOutput, NoSummaryMeansTheToolDidNotFinish) {
  EXPECT_FALSE(ParseSanitizerOutput("========= COMPUTE-SANITIZER\nSegmentation fault\n"));
}

}  // namespace
}  // namespace kb
