// head_rms_norm through the dispatcher: [tokens, heads, head_dim] with
// head_dim 64/128/256 and odd ones, misaligned views, bf16/fp16/fp32, against
// a float64 reference; head_dim above 256 is refused.
#include <ATen/ATen.h>

#include "kbuild/harness/op_test.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

OpSpec HeadSpec() {
  OpSpec spec;
  spec.op = kb::harness::ProjectOp("head_rms_norm");
  spec.cases = kb::harness::MakeCases({{1, 8, 128},
                                       {37, 24, 128},
                                       {5, 16, 64},
                                       {3, 4, 256},
                                       {2, 3, 100},
                                       {9, 2, 7}},
                                      {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases({{37, 24, 128}, {3, 4, 256}},
                                        {at::kBFloat16, at::kFloat},
                                        {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[2]}), 1e-6};
  };
  spec.reference = [](const Args& a) {
    const at::Tensor x = a[0].toTensor();
    return std::vector<at::Tensor>{
        x * at::rsqrt(x.pow(2).mean(-1, true) + a[2].toDouble()) *
        a[1].toTensor()};
  };
  return spec;
}

KB_OP_TEST(HeadRmsNorm, MatchesReference, HeadSpec());

TEST(HeadRmsNorm, RejectsHeadDimAbove256) {
  OpSpec spec = HeadSpec();
  spec.cases = kb::harness::MakeCases({{2, 2, 512}}, {at::kBFloat16},
                                      {.expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
