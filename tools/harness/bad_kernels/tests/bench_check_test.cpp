// Ops that pass every correctness test but are wrong where only a benchmark
// looks must FAIL kb::harness::MeasureCase's value check (bench_cheats.h);
// the correct rms_norm must pass the same check. Needs the GPU: skips without.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <gtest/gtest.h>

#include <string>

#include "kbuild/harness/benchmark.h"
#include "rms_norm_spec.h"

namespace {

using kb::harness::Args;
using kb::harness::BenchRecord;
using kb::harness::BenchSpec;

using bad_kernels_tests::RmsNormBenchSpec;

// The same check against the first baseline instead of a reference.
BenchSpec AgainstBaseline(BenchSpec spec) {
  spec.reference = nullptr;
  spec.baselines = {{"at::rms_norm", [](const Args& a) {
                       const at::Tensor x = a[1].toTensor();
                       return std::vector<at::Tensor>{
                           at::rms_norm(x, {x.size(1)}, std::nullopt, a[2].toDouble())};
                     }}};
  return spec;
}

BenchRecord Measure(const BenchSpec& spec) {
  return kb::harness::MeasureCase(spec, spec.cases.front());
}

// The problem that starts with `prefix`, or "" when none does.
std::string ProblemStartingWith(const BenchRecord& r, const std::string& prefix) {
  for (const std::string& p : r.problems) {
    if (p.rfind(prefix, 0) == 0) return p;
  }
  return "";
}

std::string AllProblems(const BenchRecord& r) {
  std::string all;
  for (const std::string& p : r.problems) all += p + "\n";
  return all;
}

class BenchCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (c10::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: MeasureCase needs a GPU";
  }
};

TEST_F(BenchCheck, CorrectRmsNormPassesAgainstReferenceAndBaseline) {
  for (const BenchSpec& spec : {RmsNormBenchSpec("rms_norm", {131072, 128}),
                                AgainstBaseline(RmsNormBenchSpec("rms_norm", {131072, 128}))}) {
    BenchRecord r = Measure(spec);
    EXPECT_EQ(ProblemStartingWith(r, "incorrect"), "") << AllProblems(r);
    EXPECT_EQ(r.checked_against, spec.reference ? "reference" : "baseline 'at::rms_norm'");
    EXPECT_GT(r.check_ms, 0);
    EXPECT_LT(r.check_rel_l2_error, 1e-5);
  }
}

TEST_F(BenchCheck, DegradingAfterManyCallsFailsAfterTiming) {
  BenchRecord r = Measure(RmsNormBenchSpec("rms_norm_degrades", {8192, 4096}));
  EXPECT_NE(ProblemStartingWith(r,
                                "incorrect (unwritten) after timing, checked against the "
                                "reference"),
            "")
      << AllProblems(r);
  EXPECT_EQ(ProblemStartingWith(r, "incorrect (unwritten) before timing"), "")
      << "the first calls are honest";
}

TEST_F(BenchCheck, NaNOnlyOnLargeShapesFailsBeforeTiming) {
  BenchRecord r = Measure(RmsNormBenchSpec("rms_norm_nan_large", {131072, 128}));
  EXPECT_NE(ProblemStartingWith(r,
                                "incorrect (nonfinite) before timing, checked against the "
                                "reference"),
            "")
      << AllProblems(r);
  BenchRecord baseline =
      Measure(AgainstBaseline(RmsNormBenchSpec("rms_norm_nan_large", {131072, 128})));
  EXPECT_NE(ProblemStartingWith(baseline,
                                "incorrect (nonfinite) before timing, checked against "
                                "the baseline 'at::rms_norm'"),
            "")
      << AllProblems(baseline);
}

TEST_F(BenchCheck, NaNLargeIsRightOnTestSizedShapes) {
  BenchRecord r = Measure(RmsNormBenchSpec("rms_norm_nan_large", {2048, 4096}));
  EXPECT_EQ(ProblemStartingWith(r, "incorrect"), "") << AllProblems(r);
}

TEST_F(BenchCheck, ASpecWithNothingToCheckAgainstFails) {
  BenchSpec spec = RmsNormBenchSpec("rms_norm", {64, 128});
  spec.reference = nullptr;
  BenchRecord r = Measure(spec);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_NE(AllProblems(r).find("no reference and no baseline"), std::string::npos)
      << AllProblems(r);
}

}  // namespace
