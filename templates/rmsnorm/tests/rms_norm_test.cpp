// rms_norm through the dispatcher against a float64 reference: odd and large
// hidden sizes, misaligned views, bf16/fp16/fp32, weight of x's dtype, fp32 or
// none, and a rejected stride-2 last dimension. 4099 rows: more rows than the
// GPU holds blocks at once (several waves, a prime row count), also with the
// narrow vectors of a misaligned view. Short rows (<= 256 elements) on every
// lanes-per-row path of the row plan. Rows that start off a 16-byte boundary
// (split into head, body and tail) on every path, with every head length,
// and views 1-8 elements into wider rows or a longer weight. Then the input
// classes: tiny, fp16 near max, > 65,535 rows, > 2^31 elements.
#include <ATen/ATen.h>

#include <string>

#include "kbuild/harness/op_test.h"
#include "short_rows.h"
#include "split_rows.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 64},    {7, 2047}, {129, 4096}, {3, 5120},   {5, 7168},
          {2, 65536}, {33, 100}, {1, 40000},  {4099, 2048}, {9001, 128}};
}

std::vector<at::Tensor> Reference(const at::Tensor& x, const c10::IValue& w,
                                  double eps) {
  at::Tensor y = x * at::rsqrt(x.pow(2).mean(-1, true) + eps);
  if (!w.isNone()) y = y * w.toTensor();
  return {y};
}

// weight: "same" (x's dtype), "fp32" or "none".
OpSpec RmsNormSpec(const std::string& weight) {
  OpSpec spec;
  spec.test = "rms_norm weight=" + weight;
  spec.op = kb::harness::ProjectOp("rms_norm");
  spec.cases =
      kb::harness::MakeCases(Shapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases({{7, 2047}, {65, 4096}, {4099, 1024}},
                                        {at::kBFloat16, at::kFloat},
                                        {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [weight](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    c10::IValue w;  // None
    if (weight == "same") w = f.Param({s[1]});
    if (weight == "fp32") w = f.Param({s[1]}, at::kFloat);
    return Args{f.Input(s), w, 1e-6};
  };
  spec.reference = [](const Args& a) {
    return Reference(a[0].toTensor(), a[1], a[2].toDouble());
  };
  return spec;
}

// Beyond magnitude 1 and the grid limits (kbuild/harness/case.h): tiny
// inputs, where eps sets the scale; fp16 near its max, where the fp32 sum of
// squares must stay finite (bf16 and fp32 near their max overflow any fp32
// sum of squares: outside a norm's contract); more than 65,535 rows; and one
// case past 2^31 elements (64-bit indexing: ~95 GB of GPU memory, ~1 min).
// Short rows (short_rows.h) on every dtype, and misaligned views of them.
OpSpec ShortRowsSpec() {
  OpSpec spec = RmsNormSpec("same");
  spec.test = "rms_norm short rows";
  spec.cases = kb::harness::MakeCases(ShortRowShapes(),
                                      {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases(ShortRowOffsetShapes(),
                                        {at::kBFloat16, at::kFloat},
                                        {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  return spec;
}

// Odd row sizes (split_rows.h) on every dtype, and past 2^31 elements.
OpSpec SplitRowsSpec() {
  OpSpec spec = RmsNormSpec("same");
  spec.test = "rms_norm split rows";
  spec.cases = kb::harness::MakeCases(SplitRowShapes(),
                                      {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c :
       kb::harness::MakeCases(HugeSplitRowShapes(), {at::kBFloat16}))
    spec.cases.push_back(c);
  return spec;
}

// x `x_offset` elements into rows of hidden + 8, the weight `w_offset`
// elements into hidden + 8. x offsets 1-7 start rows where the fresh output's
// do not: no split serves both, so narrower vectors; offset 8 keeps them
// alike (odd rows split, 4096 takes whole vectors). A weight offset alone
// leaves the rows aligned and the weight read a scalar at a time.
OpSpec ViewOffsetSpec(int64_t x_offset, int64_t w_offset) {
  OpSpec spec = RmsNormSpec("same");
  spec.test = "rms_norm x offset " + std::to_string(x_offset) +
              ", weight offset " + std::to_string(w_offset);
  spec.cases = kb::harness::MakeCases({{4099, 2047}, {37, 4096}, {4099, 64}},
                                      {at::kBFloat16, at::kFloat});
  spec.make_args = [x_offset, w_offset](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor x = f.Input({s[0], s[1] + 8}).narrow(1, x_offset, s[1]);
    const at::Tensor w = f.Param({s[1] + 8}).narrow(0, w_offset, s[1]);
    return Args{x, w, 1e-6};
  };
  return spec;
}

OpSpec InputClassesSpec() {
  OpSpec spec = RmsNormSpec("same");
  spec.test = "rms_norm input classes";
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

KB_OP_TEST(RmsNorm, WeightOfInputDtype, RmsNormSpec("same"));
KB_OP_TEST(RmsNorm, Fp32Weight, RmsNormSpec("fp32"));
KB_OP_TEST(RmsNorm, NoWeight, RmsNormSpec("none"));
KB_OP_TEST(RmsNorm, ShortRowsSeveralPerWarp, ShortRowsSpec());
KB_OP_TEST(RmsNorm, TinyNearMaxManyRowsAndHugeInputs, InputClassesSpec());
KB_OP_TEST(RmsNorm, SplitRowsEveryHeadLength, SplitRowsSpec());

TEST(RmsNorm, ViewsOffsetByOneToEightElements) {
  for (int64_t offset = 1; offset <= 8; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(offset, 0));
  }
  for (int64_t offset = 1; offset <= 7; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(0, offset));
  }
}

TEST(RmsNorm, RejectsStridedLastDimension) {
  OpSpec spec = RmsNormSpec("same");
  spec.cases = kb::harness::MakeCases(
      {{4, 64}}, {at::kBFloat16},
      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
