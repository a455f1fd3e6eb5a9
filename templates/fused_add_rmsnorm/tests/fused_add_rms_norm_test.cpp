// fused_add_rms_norm through the dispatcher: both in-place tensors compared to
// a float64 reference (residual + x, then RMSNorm of it), odd and large hidden
// sizes, misaligned views, bf16/fp16/fp32, short rows (<= 256 elements) on
// every lanes-per-row path of the row plan; rows that start off a 16-byte
// boundary (split into head, body and tail) on every path with every head
// length, also one element in and with the weight 1-7 elements into a
// longer one; tiny, fp16 near-max, > 65,535-row and > 2^31-element inputs.
#include <ATen/ATen.h>

#include <string>

#include "kbuild/harness/op_test.h"
#include "short_rows.h"
#include "split_rows.h"

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
  for (auto& c : kb::harness::MakeCases(
           ShortRowShapes(), {at::kBFloat16, at::kHalf, at::kFloat})) {
    spec.cases.push_back(c);
  }
  std::vector<std::vector<int64_t>> offset_shapes = ShortRowOffsetShapes();
  offset_shapes.insert(offset_shapes.end(), {{7, 2047}, {65, 4096}});
  for (auto& c : kb::harness::MakeCases(offset_shapes,
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

// Odd row sizes (split_rows.h) on every dtype and past 2^31 elements; x and
// residual both one element in (offset_view) still split alike: 4094 and 14
// put 7 + 7 (bf16) or 3 + 3 (fp32) edge elements on every row.
OpSpec SplitRowsSpec() {
  OpSpec spec = FusedSpec();
  spec.test = "fused_add_rms_norm split rows";
  spec.cases = kb::harness::MakeCases(SplitRowShapes(),
                                      {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases(
           {{4099, 2047}, {4099, 4094}, {37, 4096}, {4099, 14}, {4099, 1}},
           {at::kBFloat16, at::kFloat}, {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  for (auto& c :
       kb::harness::MakeCases(HugeSplitRowShapes(), {at::kBFloat16}))
    spec.cases.push_back(c);
  return spec;
}

// The weight `offset` elements into one of hidden + 8: aligned rows split
// with all body and the weight read a scalar at a time (offsets 1-3, 5-7),
// or 8-byte vectors throughout (4).
OpSpec WeightOffsetSpec(int64_t offset) {
  OpSpec spec = FusedSpec();
  spec.test = "fused_add_rms_norm weight offset " + std::to_string(offset);
  spec.cases = kb::harness::MakeCases({{37, 4096}, {4099, 2047}, {4099, 64}},
                                      {at::kBFloat16, at::kFloat});
  spec.make_args = [offset](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor w = f.Param({s[1] + 8}).narrow(0, offset, s[1]);
    return Args{f.InPlace(s), f.InPlace(s), w, 1e-6};
  };
  return spec;
}

// Beyond magnitude 1 and the grid limits (kbuild/harness/case.h): tiny
// inputs, where eps sets the scale; fp16 near its max (x + residual stays
// finite; the fp32 sum of squares must too; bf16 and fp32 near their max
// overflow any fp32 sum of squares: outside a norm's contract); more than
// 65,535 rows; one case past 2^31 elements (~95 GB of GPU memory, ~1 min).
OpSpec InputClassesSpec() {
  OpSpec spec = FusedSpec();
  spec.test = "fused_add_rms_norm input classes";
  const std::vector<std::vector<int64_t>> shapes = {
      {7, 2047}, {129, 4096}, {9001, 128}};
  spec.cases = kb::harness::MakeCases(
      shapes, {at::kBFloat16, at::kHalf, at::kFloat},
      {.magnitude = kb::harness::kTinyMagnitude});
  for (auto& c : kb::harness::NearMaxCases(shapes, {at::kHalf}))
    spec.cases.push_back(c);
  for (auto& c : kb::harness::MakeCases(kb::harness::ManyRowShapes(),
                                        {at::kBFloat16, at::kFloat}))
    spec.cases.push_back(c);
  for (auto& c :
       kb::harness::MakeCases(kb::harness::HugeShapes(), {at::kBFloat16}))
    spec.cases.push_back(c);
  return spec;
}

KB_OP_TEST(FusedAddRmsNorm, MatchesAddThenRmsNorm, FusedSpec());
KB_OP_TEST(FusedAddRmsNorm, TinyNearMaxManyRowsAndHugeInputs,
           InputClassesSpec());
KB_OP_TEST(FusedAddRmsNorm, SplitRowsEveryHeadLength, SplitRowsSpec());

TEST(FusedAddRmsNorm, WeightOffsetByOneToSevenElements) {
  for (int64_t offset = 1; offset <= 7; ++offset) {
    kb::harness::ExpectOpPasses(WeightOffsetSpec(offset));
  }
}

TEST(FusedAddRmsNorm, RejectsStridedLastDimension) {
  OpSpec spec = FusedSpec();
  spec.cases = kb::harness::MakeCases(
      {{4, 64}}, {at::kBFloat16},
      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
