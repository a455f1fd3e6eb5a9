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
