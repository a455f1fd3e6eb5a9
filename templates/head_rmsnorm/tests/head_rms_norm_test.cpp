// head_rms_norm through the dispatcher: [tokens, heads, head_dim] with
// head_dim 64/128/256 and odd ones, misaligned views, bf16/fp16/fp32, against
// a float64 reference; tiny, fp16 near-max, many-row and > 2^31-element
// inputs; head_dim above 256 is refused. Odd head_dims (7, 14, 33, 100,
// 255) start rows at every distance from a 16-byte boundary and take the
// head / body / tail split of rms_norm (common/row_span.h). Misaligned
// views take scalar accesses: head_dim 128 a warp per row, 256 a block per
// row (1 vector per thread for few rows, 2 for 2400).
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
                                       {9, 2, 7},
                                       {1366, 3, 33},
                                       {515, 2, 255},
                                       {4099, 1, 14}},
                                      {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases(
           {{37, 24, 128}, {3, 4, 256}, {100, 24, 256}},
           {at::kBFloat16, at::kFloat}, {.offset_view = true})) {
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

// Beyond magnitude 1 and the grid limits (kbuild/harness/case.h): tiny
// inputs, where eps sets the scale; fp16 near its max (the fp32 sum of
// squares must stay finite; bf16 and fp32 near their max overflow any fp32
// sum of squares: outside a norm's contract); more than 65,535 heads in all;
// one case past 2^31 elements (~95 GB of GPU memory, ~1 min).
OpSpec InputClassesSpec() {
  OpSpec spec = HeadSpec();
  spec.test = "head_rms_norm input classes";
  const std::vector<std::vector<int64_t>> shapes = {{37, 24, 128},
                                                    {9, 2, 7}};
  spec.cases = kb::harness::MakeCases(
      shapes, {at::kBFloat16, at::kHalf, at::kFloat},
      {.magnitude = kb::harness::kTinyMagnitude});
  for (auto& c : kb::harness::NearMaxCases(shapes, {at::kHalf}))
    spec.cases.push_back(c);
  // 65,537 and 70,001 tokens of 2 heads; 2^21 + 1 tokens of 8 heads of 128.
  for (auto& c : kb::harness::MakeCases({{65537, 2, 64}, {70001, 2, 33}},
                                        {at::kBFloat16, at::kFloat}))
    spec.cases.push_back(c);
  for (auto& c : kb::harness::MakeCases({{(1 << 21) + 1, 8, 128}},
                                        {at::kBFloat16}))
    spec.cases.push_back(c);
  return spec;
}

KB_OP_TEST(HeadRmsNorm, MatchesReference, HeadSpec());
KB_OP_TEST(HeadRmsNorm, TinyNearMaxManyRowsAndHugeInputs, InputClassesSpec());

TEST(HeadRmsNorm, RejectsHeadDimAbove256) {
  OpSpec spec = HeadSpec();
  spec.cases = kb::harness::MakeCases({{2, 2, 512}}, {at::kBFloat16},
                                      {.expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
