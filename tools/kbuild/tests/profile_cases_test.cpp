#include "core/profile_cases.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

const std::vector<std::string> kCases = {
    "rms_norm/1x4096 bf16 correctness_only", "rms_norm/128x4096 bf16", "rms_norm/8192x4096 bf16",
    "rms_norm/8192x4096 bf16 offset_view", "geglu/8192x4096 bf16"};

TEST(ProfileCases, ParsesGoogleBenchmarkListWithoutRunSettings) {
  const std::string output =
      "kbuild harness: a message from a static initializer\n"
      "rms_norm/128x4096 bf16/iterations:1/manual_time\n"
      "rms_norm/8192x4096 bf16 offset_view/iterations:1/manual_time\n"
      "rms_norm/8192x4096 bf16/iterations:1/repeats:3/manual_time\r\n"
      "rms_norm/128x4096 bf16/iterations:1/manual_time\n";
  EXPECT_EQ(
      ParseBenchmarkList(output),
      (std::vector<std::string>{"rms_norm/128x4096 bf16", "rms_norm/8192x4096 bf16 offset_view",
                                "rms_norm/8192x4096 bf16"}));
}

TEST(ProfileCases, ListsCasesThroughTheBenchmarkBinary) {
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions& o) {
    EXPECT_EQ(o.env.at("KBUILD_PROJECT_LIBRARY"), "/p/build/cmake/demo.so");
    return ProcessResult{0, false, false, "demo/4x4 fp32/iterations:1/manual_time\n"};
  });
  auto cases = ListBenchmarkCases(runner, "/p/build/cmake/kbuild_benchmarks",
                                  {{"KBUILD_PROJECT_LIBRARY", "/p/build/cmake/demo.so"}});
  ASSERT_TRUE(cases.ok()) << cases.error().message;
  EXPECT_EQ(*cases, std::vector<std::string>{"demo/4x4 fp32"});
  EXPECT_EQ(runner.calls[0], (std::vector<std::string>{"/p/build/cmake/kbuild_benchmarks",
                                                       "--benchmark_list_tests=true"}));

  FakeProcessRunner broken([](const std::vector<std::string>&, const RunOptions&) {
    return ProcessResult{134, false, false, "terminate called after throwing\n"};
  });
  auto failed = ListBenchmarkCases(broken, "/p/kbuild_benchmarks", {});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ExitCode::kBuildError);
  EXPECT_NE(failed.error().detail.find("terminate called"), std::string::npos);
}

TEST(ProfileCases, WithoutACaseTakesTheFirstPerformanceCase) {
  auto chosen = ChooseCase(kCases, std::nullopt);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->name, "rms_norm/128x4096 bf16");
  EXPECT_EQ(chosen->chosen_by, "first performance case");
  EXPECT_FALSE(ChooseCase({"a/1 fp32 correctness_only"}, std::nullopt).ok());
}

TEST(ProfileCases, TakesAFullOrAnUnambiguousBareName) {
  EXPECT_EQ(ChooseCase(kCases, "rms_norm/8192x4096 bf16")->name, "rms_norm/8192x4096 bf16");
  EXPECT_EQ(ChooseCase(kCases, "128x4096 bf16")->name, "rms_norm/128x4096 bf16");
  auto ambiguous = ChooseCase(kCases, "8192x4096 bf16");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.error().code, ExitCode::kUsage);
  EXPECT_EQ(ambiguous.error().hint,
            "name one: 'rms_norm/8192x4096 bf16' or 'geglu/8192x4096 bf16'");
}

TEST(ProfileCases, UnknownCaseIsUsageErrorWithTheNearestName) {
  auto unknown = ChooseCase(kCases, "rms_norm/8192x4069 bf16");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ExitCode::kUsage);
  EXPECT_EQ(unknown.error().message, "unknown case 'rms_norm/8192x4069 bf16'");
  EXPECT_EQ(unknown.error().hint,
            "did you mean 'rms_norm/8192x4096 bf16'?; kbuild profile --list prints every case");
}

TEST(ProfileCases, FilterMatchesExactlyTheCaseAndFileStemIsSafe) {
  EXPECT_EQ(CaseFilterRegex("rms_norm/8192x4096 bf16"), "^rms_norm/8192x4096 bf16(/|$)");
  EXPECT_EQ(CaseFilterRegex("a/1x2 fp32 x1e+03"), "^a/1x2 fp32 x1e\\+03(/|$)");
  EXPECT_EQ(CaseFileStem("rms_norm/8192x4096 bf16"), "rms_norm_8192x4096_bf16");
  EXPECT_EQ(CaseFileStem("../x"), "_.._x");
  EXPECT_EQ(CaseFileStem(".hidden"), "_.hidden");
}

}  // namespace
}  // namespace kb
