// Each op here is right on magnitude-1 inputs of small shapes and wrong on
// one input class (bad_kernels_cuda/input_cheats.h): the harness must pass
// it on the small cases and fail it, for the right reason, on that class.
// Runs on the GPU machine; the huge cases need ~103 GB free (an H200).
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>

#include "kbuild/harness/op_test.h"
#include "rms_norm_spec.h"

namespace {

using bad_kernels_tests::RmsNormSpec;
using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::Case;
using kb::harness::FailReason;
using kb::harness::MakeCases;
using kb::harness::OpSpec;

std::vector<Case> SmallCases() { return MakeCases({{7, 33}, {19, 111}, {64, 4096}}, {at::kFloat}); }

OpSpec SoftmaxSpec(const std::string& op, std::vector<Case> cases) {
  OpSpec spec;
  spec.op = kb::harness::ProjectOp(op);
  spec.cases = std::move(cases);
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Output(s), f.Input(s)};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{at::softmax(a[1].toTensor(), -1)};
  };
  return spec;
}

std::vector<Case> TinyCases() {
  return MakeCases({{7, 33}, {64, 4096}}, {at::kFloat}, {.magnitude = kb::harness::kTinyMagnitude});
}
std::vector<Case> LargeCases() {
  return MakeCases({{7, 33}, {64, 4096}}, {at::kFloat},
                   {.magnitude = kb::harness::kLargeMagnitude});
}
std::vector<Case> ManyRowCases() { return MakeCases(kb::harness::ManyRowShapes(), {at::kFloat}); }
std::vector<Case> HugeCases() { return MakeCases(kb::harness::HugeShapes(), {at::kFloat}); }

class InputClasses : public ::testing::Test {
 protected:
  void SetUp() override {
    if (c10::cuda::device_count() == 0) GTEST_SKIP() << "needs a CUDA GPU";
  }
};

TEST_F(InputClasses, CorrectRmsNormPassesEveryClass) {
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm", TinyCases()));
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm", ManyRowCases()));
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm", HugeCases()));
}

TEST_F(InputClasses, IgnoringEpsIsCaughtByTinyInputs) {
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm_ignores_eps", SmallCases()));
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm_ignores_eps", ManyRowCases()));
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_ignores_eps", TinyCases()),
                             {FailReason::kMismatch});
}

TEST_F(InputClasses, RowsOnGridYAreCaughtPast65535Rows) {
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm_rows_65535", SmallCases()));
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm_rows_65535", TinyCases()));
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_rows_65535", ManyRowCases()),
                             {FailReason::kUnwritten});
}

TEST_F(InputClasses, Int32ElementCountIsCaughtPast2To31Elements) {
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm_int32_index", SmallCases()));
  kb::harness::ExpectOpPasses(RmsNormSpec("rms_norm_int32_index", ManyRowCases()));
  const kb::harness::OpReport huge =
      kb::harness::CheckOp(RmsNormSpec("rms_norm_int32_index", HugeCases()));
  ASSERT_EQ(huge.records.size(), 1u);
  if (huge.records[0].skipped) GTEST_SKIP() << huge.records[0].message;
  EXPECT_EQ(huge.records[0].reason, FailReason::kUnwritten) << huge.Describe();
}

TEST_F(InputClasses, CorrectSoftmaxPassesLargeInputs) {
  kb::harness::ExpectOpPasses(SoftmaxSpec("softmax", SmallCases()));
  kb::harness::ExpectOpPasses(SoftmaxSpec("softmax", LargeCases()));
}

TEST_F(InputClasses, SoftmaxWithoutTheRowMaxIsCaughtByLargeInputs) {
  kb::harness::ExpectOpPasses(SoftmaxSpec("softmax_unstable", SmallCases()));
  kb::harness::ExpectOpFails(SoftmaxSpec("softmax_unstable", LargeCases()),
                             {FailReason::kNonFinite});
}

}  // namespace
