// fused_add_rms_norm through the dispatcher: both in-place tensors compared to
// a float64 reference (residual + x, then RMSNorm of it), odd and large hidden
// sizes, misaligned views, bf16/fp16/fp32.
#include <ATen/ATen.h>

#include "kbuild/harness/op_test.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

OpSpec FusedSpec() {
  OpSpec spec;
  spec.op = kb::harness::ProjectOp("fused_add_rms_norm");
  spec.cases = kb::harness::MakeCases(
      {{1, 64}, {7, 2047}, {129, 4096}, {3, 7168}, {2, 65536}, {33, 100}},
      {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases({{7, 2047}, {65, 4096}},
                                        {at::kBFloat16, at::kFloat},
                                        {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.InPlace(s), f.InPlace(s), f.Param({s[1]}), 1e-6};
  };
  // Expected values of the in-place args in order: input, then residual.
  spec.reference = [](const Args& a) {
    const at::Tensor residual = a[0].toTensor() + a[1].toTensor();
    const at::Tensor normed =
        residual * at::rsqrt(residual.pow(2).mean(-1, true) + a[3].toDouble()) *
        a[2].toTensor();
    return std::vector<at::Tensor>{normed, residual};
  };
  return spec;
}

KB_OP_TEST(FusedAddRmsNorm, MatchesAddThenRmsNorm, FusedSpec());

TEST(FusedAddRmsNorm, RejectsStridedLastDimension) {
  OpSpec spec = FusedSpec();
  spec.cases = kb::harness::MakeCases(
      {{4, 64}}, {at::kBFloat16},
      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
