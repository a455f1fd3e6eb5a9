// layer_norm through the dispatcher against ATen's layer_norm in float64 on
// the same inputs: odd and large hidden sizes (2047, 4096 and rows past the
// registers: 65536, 40000 take the Welford pass), misaligned views,
// bf16/fp16/fp32, weight and bias of x's dtype or fp32, each alone and
// neither (LTX-Video's elementwise_affine=False). Rows whose mean dwarfs
// their spread (1e4 +- 1 in fp32) fail a kernel that takes the variance as
// E[x^2] - E[x]^2. Short rows on every lanes-per-row path, rows split into
// head, body and tail on every path, views 1-8 elements into wider rows or
// longer parameters; then the input classes: tiny, large, fp16 near max,
// > 65,535 rows, > 2^31 elements. Rejected: a strided last dimension, a
// bias whose dtype differs from the weight's.
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
  return {{1, 64},   {7, 2047},  {129, 4096},  {3, 5120},   {5, 7168}, {2, 65536},
          {33, 100}, {1, 40000}, {4099, 2048}, {9001, 128}, {17, 1}};
}

std::vector<at::Tensor> Reference(const Args& a) {
  const at::Tensor& x = a[0].toTensor();
  const auto param = [&](size_t i) {
    return a[i].isNone() ? std::optional<at::Tensor>() : a[i].toTensor();
  };
  return {at::layer_norm(x, {x.size(-1)}, param(1), param(2), a[3].toDouble())};
}

// Which parameters a spec passes, and their dtype.
struct Params {
  bool weight = true;
  bool bias = true;
  bool fp32 = false;  // else x's dtype
  std::string Name() const {
    return std::string(weight ? "weight" : "no weight") + (bias ? ", bias" : ", no bias") +
           (fp32 ? " (fp32)" : "");
  }
};

OpSpec LayerNormSpec(Params p) {
  OpSpec spec;
  spec.test = "layer_norm " + p.Name();
  spec.op = kb::harness::ProjectOp("layer_norm");
  spec.cases = kb::harness::MakeCases(Shapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases({{7, 2047}, {65, 4096}, {4099, 1024}},
                                        {at::kBFloat16, at::kFloat}, {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [p](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const std::optional<at::ScalarType> dtype =
        p.fp32 ? std::optional<at::ScalarType>(at::kFloat) : std::nullopt;
    c10::IValue w, b;  // None
    if (p.weight) w = f.Param({s[1]}, dtype);
    if (p.bias) b = f.Param({s[1]}, dtype);
    return Args{f.Input(s), w, b, 1e-5};
  };
  spec.reference = Reference;
  return spec;
}

// Rows of mean `offset` and standard deviation 1: the two-pass variance
// keeps them, E[x^2] - E[x]^2 in fp32 loses it (y off by ~1e3 for fp32 rows
// at 1e4, the two-pass form by ~1e-3; by 0.3 for fp16 rows at 1e3, against
// 2e-3). Each dtype's offset is one at which it still resolves the spread
// (bf16 at 1e2, where both forms agree: a plain check there). The fp32
// tolerance is what the Welford pass's x - mean allows: the mean's rounding,
// |mean| * 2^-24 over a few additions, ~1e-3 at 1e4. The register paths keep
// the mean relative to the row's first element (row_stats.cuh); a plain fp32
// sum of the row missed it by up to 7e-3 on the H200. On every path: lanes,
// warp, block, split rows and the Welford pass.
OpSpec OffsetMeanSpec() {
  OpSpec spec = LayerNormSpec({});
  spec.test = "layer_norm rows of mean 1e4, 1e3, 1e2 and std 1";
  const std::vector<std::vector<int64_t>> shapes = {
      {9001, 128}, {301, 1000}, {129, 4096}, {4099, 2047}, {3, 65536}};
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16, at::kHalf});
  for (auto& c : kb::harness::MakeCases(shapes, {at::kFloat})) {
    c.tolerance = kb::harness::Tolerance{4e-3, 4e-3};
    spec.cases.push_back(c);
  }
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::ScalarType dtype = f.test_case().dtype;
    const double offset = dtype == at::kFloat ? 1e4 : dtype == at::kHalf ? 1e3 : 1e2;
    at::Tensor x = f.Input(s);
    x.add_(offset);  // before the call: the harness snapshots inputs after make_args
    return Args{x, f.Param({s[1]}), f.Param({s[1]}), 1e-5};
  };
  return spec;
}

OpSpec ShortRowsSpec() {
  OpSpec spec = LayerNormSpec({});
  spec.test = "layer_norm short rows";
  spec.cases = kb::harness::MakeCases(ShortRowShapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases(ShortRowOffsetShapes(), {at::kBFloat16, at::kFloat},
                                        {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  return spec;
}

// Odd row sizes (split_rows.h) on every dtype, and past 2^31 elements.
OpSpec SplitRowsSpec() {
  OpSpec spec = LayerNormSpec({});
  spec.test = "layer_norm split rows";
  spec.cases = kb::harness::MakeCases(SplitRowShapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases(HugeSplitRowShapes(), {at::kBFloat16})) {
    spec.cases.push_back(c);
  }
  return spec;
}

// x `x_offset` elements into rows of hidden + 8; the weight and the bias
// `w_offset` and `b_offset` elements into hidden + 8. x offsets 1-7 start
// rows where the fresh output's do not: narrower vectors; 8 keeps them
// alike. A parameter offset alone keeps the rows aligned and reads that
// parameter (and so both) at its alignment.
OpSpec ViewOffsetSpec(int64_t x_offset, int64_t w_offset, int64_t b_offset) {
  OpSpec spec = LayerNormSpec({});
  spec.test = "layer_norm x offset " + std::to_string(x_offset) + ", weight offset " +
              std::to_string(w_offset) + ", bias offset " + std::to_string(b_offset);
  spec.cases =
      kb::harness::MakeCases({{4099, 2047}, {37, 4096}, {4099, 64}}, {at::kBFloat16, at::kFloat});
  spec.make_args = [=](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor x = f.Input({s[0], s[1] + 8}).narrow(1, x_offset, s[1]);
    const at::Tensor w = f.Param({s[1] + 8}).narrow(0, w_offset, s[1]);
    const at::Tensor b = f.Param({s[1] + 8}).narrow(0, b_offset, s[1]);
    return Args{x, w, b, 1e-5};
  };
  return spec;
}

// Beyond magnitude 1 and the grid limits (kbuild/harness/case.h): tiny
// inputs, where eps sets the scale; large ones; fp16 near its max, where the
// fp32 squared deviations must stay finite; more than 65,535 rows; past 2^31
// elements (64-bit indexing: ~95 GB of GPU memory, ~1 min).
OpSpec InputClassesSpec() {
  OpSpec spec = LayerNormSpec({});
  spec.test = "layer_norm input classes";
  const std::vector<std::vector<int64_t>> shapes = {{7, 2047}, {129, 4096}, {9001, 128}};
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16, at::kHalf, at::kFloat},
                                      {.magnitude = kb::harness::kTinyMagnitude});
  for (auto& c : kb::harness::MakeCases(shapes, {at::kBFloat16, at::kFloat},
                                        {.magnitude = kb::harness::kLargeMagnitude})) {
    spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::NearMaxCases(shapes, {at::kHalf})) spec.cases.push_back(c);
  for (auto& c :
       kb::harness::MakeCases(kb::harness::ManyRowShapes(), {at::kBFloat16, at::kFloat})) {
    spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::MakeCases(kb::harness::HugeShapes(), {at::kBFloat16})) {
    spec.cases.push_back(c);
  }
  return spec;
}

KB_OP_TEST(LayerNorm, WeightAndBiasOfInputDtype, LayerNormSpec({}));
KB_OP_TEST(LayerNorm, Fp32WeightAndBias, LayerNormSpec({.fp32 = true}));
KB_OP_TEST(LayerNorm, WeightOnly, LayerNormSpec({.bias = false}));
KB_OP_TEST(LayerNorm, BiasOnly, LayerNormSpec({.weight = false}));
KB_OP_TEST(LayerNorm, Fp32BiasOnly, LayerNormSpec({.weight = false, .fp32 = true}));
KB_OP_TEST(LayerNorm, NoWeightNoBias, LayerNormSpec({.weight = false, .bias = false}));
KB_OP_TEST(LayerNorm, MeanFarFromZero, OffsetMeanSpec());
KB_OP_TEST(LayerNorm, ShortRowsSeveralPerWarp, ShortRowsSpec());
KB_OP_TEST(LayerNorm, SplitRowsEveryHeadLength, SplitRowsSpec());
KB_OP_TEST(LayerNorm, TinyLargeNearMaxManyRowsAndHugeInputs, InputClassesSpec());

TEST(LayerNorm, ViewsOffsetByOneToEightElements) {
  for (int64_t offset = 1; offset <= 8; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(offset, 0, 0));
  }
  for (int64_t offset = 1; offset <= 7; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(0, offset, 0));
    kb::harness::ExpectOpPasses(ViewOffsetSpec(0, 0, offset));
  }
}

TEST(LayerNorm, RejectsStridedLastDimension) {
  OpSpec spec = LayerNormSpec({});
  spec.cases = kb::harness::MakeCases({{4, 64}}, {at::kBFloat16},
                                      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

TEST(LayerNorm, RejectsBiasOfAnotherDtypeThanWeight) {
  OpSpec spec = LayerNormSpec({});
  spec.cases = kb::harness::MakeCases({{4, 64}}, {at::kBFloat16}, {.expects_rejection = true});
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[1]}), f.Param({s[1]}, at::kFloat), 1e-5};
  };
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
