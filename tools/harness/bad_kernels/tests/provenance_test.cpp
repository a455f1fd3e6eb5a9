// A binding that returns correct values from someone else's kernel must fail:
// the harness records which kernels the op call launched. Runs on the GPU
// machine (one H200).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

#include "kbuild/harness/op_test.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::FailReason;
using kb::harness::OpSpec;

// Launches are recorded on a GPU only; without one there is nothing to prove.
#define SKIP_WITHOUT_GPU() \
  if (!at::hasCUDA() || at::cuda::getNumGPUs() == 0) GTEST_SKIP() << "needs a CUDA GPU"

OpSpec RmsNormSpec(const std::string& op) {
  OpSpec spec;
  spec.op = kb::harness::ProjectOp(op);
  spec.cases = kb::harness::MakeCases({{7, 33}, {64, 4096}}, {at::kFloat});
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Output(s), f.Input(s), 1e-6};
  };
  spec.reference = [](const Args& a) {
    const at::Tensor x = a[1].toTensor();
    return std::vector<at::Tensor>{x * at::rsqrt(x.pow(2).mean(-1, true) + a[2].toDouble())};
  };
  return spec;
}

TEST(Provenance, DelegatingToAtenFails) {
  SKIP_WITHOUT_GPU();
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_delegates_to_aten"),
                             {FailReason::kNoProjectKernel});
}

TEST(Provenance, DelegatingToAtenPassesWhenDeclared) {
  SKIP_WITHOUT_GPU();
  OpSpec spec = RmsNormSpec("rms_norm_delegates_to_aten");
  spec.wraps_library = true;
  const kb::harness::OpReport report = kb::harness::CheckOp(spec);
  EXPECT_TRUE(report.passed()) << report.Describe();
  for (const auto& r : report.records) {
    EXPECT_EQ(r.provenance.project_launches, 0) << r.case_name;
    EXPECT_GT(r.provenance.launches, 0) << r.case_name;
  }
}

TEST(Provenance, HonestRmsNormRecordsOneProjectLaunch) {
  SKIP_WITHOUT_GPU();
  const kb::harness::OpReport report = kb::harness::CheckOp(RmsNormSpec("rms_norm"));
  EXPECT_TRUE(report.passed()) << report.Describe();
  for (const auto& r : report.records) {
    EXPECT_EQ(r.provenance.launches, 1) << r.case_name << ": " << r.provenance.note;
    EXPECT_EQ(r.provenance.project_launches, 1) << r.case_name;
    EXPECT_TRUE(r.provenance.foreign_kernels.empty()) << r.case_name;
  }
}

}  // namespace
