// softmax through the dispatcher against a float64 reference (at::softmax of
// the same inputs in float64): bf16/fp16/fp32, rows of 1 element to a 152K
// vocabulary on every path of the plan (4-32 lanes, a warp, a block per row,
// two passes, clusters of 2-8 blocks per row holding or looping over it),
// odd lengths, misaligned and offset views, magnitudes from 1e-4 to each dtype's max / 16 (fp32 1e4:
// exp overflows unless the max is subtracted), -inf masks (causal, padded,
// whole rows: NaN there, as torch), more than 65,535 rows, past 2^31
// elements, and a rejected stride-2 last dimension.
#include <ATen/ATen.h>

#include <limits>
#include <string>

#include "kbuild/harness/op_test.h"
#include "short_rows.h"
#include "split_rows.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

const std::vector<at::ScalarType> kDtypes = {at::kBFloat16, at::kHalf,
                                             at::kFloat};

// Rows x columns, bf16 path (132 SMs, 50-60 MiB of L2): {1, 1} one element;
// {9001, 128} 16 lanes; {16384, 1024} a warp, 4 per lane; {129, 4096} a
// block, 1 each; {4099, 2048} a block, 2 each; {200, 32768} a block, 8
// each. Clusters of 8 that hold their shares (one wave): {2, 65536}, {3,
// 151936} and {1, 152063} (a split row: head, body, tail); fp32 also {5,
// 24576} and {5, 32768}, and {100, 20000} and {100, 20001} (split rows) by
// 2. Looping clusters: {100, 20000} and {100, 20001} by 2, {5, 24576} by 4,
// {5, 32768} by 8; fp32 {3, 151936} and {1, 152063} by 8; split rows {100,
// 152063} by 2 and {40, 152063} by 4 (held in 8 blocks, they would take
// more than one wave; x fits in L2). Two passes, a block per row: {300,
// 40000} and {140, 140000} (more held blocks than one wave, x within L2),
// fp32 {200, 32768}.
std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 1},       {1, 64},      {7, 2047},    {129, 4096}, {3, 5120},
          {33, 100},    {9001, 128},  {16384, 1024}, {4099, 2048},
          {200, 32768}, {300, 40000}, {100, 20000}, {5, 24576}, {5, 32768},
          {3, 151936},  {1, 152063},  {2, 65536},   {140, 140000},
          {100, 152063}, {40, 152063}, {100, 20001}};
}

std::vector<at::Tensor> Reference(const at::Tensor& x) {
  return {at::softmax(x, -1)};
}

OpSpec SoftmaxSpec() {
  OpSpec spec;
  spec.test = "softmax";
  spec.op = kb::harness::ProjectOp("softmax");
  spec.cases = kb::harness::MakeCases(Shapes(), kDtypes);
  // Offset views: x and the fresh output start at different phases, so
  // narrower vectors (one block per row: no cluster).
  for (auto& c : kb::harness::MakeCases(
           {{7, 2047}, {65, 4096}, {4099, 1024}, {3, 151937}},
           {at::kBFloat16, at::kFloat}, {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  // A stride-2 last dimension is refused with a message, never read.
  spec.cases.push_back(kb::harness::MakeCases(
      {{4, 64}}, {at::kBFloat16},
      {.non_contiguous = true, .expects_rejection = true})[0]);
  spec.make_args = [](ArgFactory& f) {
    return Args{f.Input(f.test_case().shape)};
  };
  spec.reference = [](const Args& a) { return Reference(a[0].toTensor()); };
  return spec;
}

// Short rows (short_rows.h) on every dtype, and misaligned views of them.
OpSpec ShortRowsSpec() {
  OpSpec spec = SoftmaxSpec();
  spec.test = "softmax short rows";
  spec.cases = kb::harness::MakeCases(ShortRowShapes(), kDtypes);
  for (auto& c : kb::harness::MakeCases(ShortRowOffsetShapes(),
                                        {at::kBFloat16, at::kFloat},
                                        {.offset_view = true})) {
    spec.cases.push_back(c);
  }
  return spec;
}

// Odd row lengths (split_rows.h: every head length on every path, 3 x
// 40001 on a cluster of 8), and past 2^31 elements in split rows.
OpSpec SplitRowsSpec() {
  OpSpec spec = SoftmaxSpec();
  spec.test = "softmax split rows";
  spec.cases = kb::harness::MakeCases(SplitRowShapes(), kDtypes);
  for (auto& c : kb::harness::MakeCases(HugeSplitRowShapes(), {at::kBFloat16}))
    spec.cases.push_back(c);
  return spec;
}

// Rows `offset` elements into rows of cols + 8: offsets 1-7 start x where
// the fresh output does not (narrower vectors), 8 keeps them alike (odd
// rows split, 151936 keeps whole vectors and its cluster).
OpSpec ViewOffsetSpec(int64_t offset) {
  OpSpec spec = SoftmaxSpec();
  spec.test = "softmax x offset " + std::to_string(offset);
  spec.cases = kb::harness::MakeCases(
      {{4099, 2047}, {37, 4096}, {4099, 64}, {3, 151936}},
      {at::kBFloat16, at::kFloat});
  spec.make_args = [offset](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input({s[0], s[1] + 8}).narrow(1, offset, s[1])};
  };
  return spec;
}

// Magnitudes: tiny (a near-uniform row), 1e3 and 1e4 (fp32 logits: exp of
// them overflows fp32 unless the row max is subtracted first; bf16 / fp16
// rows become one-hot or ties), and each dtype's max / 16 (x - max reaches
// -inf in float32: still exp = 0), on every path ({100, 20000}: fp32 held
// by clusters of 2). More than 65,535 rows; past 2^31 elements.
OpSpec InputClassesSpec() {
  OpSpec spec = SoftmaxSpec();
  spec.test = "softmax input classes";
  const std::vector<std::vector<int64_t>> shapes = {
      {7, 2047},   {129, 4096},  {9001, 128},
      {3, 151936}, {300, 40000}, {100, 20000}};
  spec.cases.clear();
  for (double magnitude : {kb::harness::kTinyMagnitude,
                           kb::harness::kLargeMagnitude, 1e4}) {
    for (auto& c : kb::harness::MakeCases(shapes, kDtypes,
                                          {.magnitude = magnitude}))
      spec.cases.push_back(c);
  }
  for (auto& c : kb::harness::NearMaxCases(shapes, kDtypes))
    spec.cases.push_back(c);
  for (auto& c : kb::harness::MakeCases(kb::harness::ManyRowShapes(),
                                        {at::kBFloat16, at::kFloat}))
    spec.cases.push_back(c);
  for (auto& c :
       kb::harness::MakeCases(kb::harness::HugeShapes(), {at::kBFloat16}))
    spec.cases.push_back(c);
  return spec;
}

// -inf masks written into x: causal (column c of row r is masked past r %
// cols, as attention scores of queries r), every 7th row entirely -inf (a
// fully masked query: NaN, as torch.softmax), and the last third of every
// 5th row (padding). Row lengths on every path, single-element rows (one
// -inf element: NaN), a vocabulary on a cluster and fp32 rows held by
// clusters of 2 ({100, 20000}).
OpSpec MaskedSpec() {
  OpSpec spec = SoftmaxSpec();
  spec.test = "softmax -inf masks";
  spec.cases = kb::harness::MakeCases(
      {{4099, 1}, {4099, 7}, {4099, 64}, {2048, 2047}, {513, 4096},
       {64, 32768}, {5, 151936}, {300, 40000}, {4099, 129}, {100, 20000}},
      kDtypes);
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    at::Tensor x = f.Input(s);
    const auto opts = at::TensorOptions().device(x.device()).dtype(at::kLong);
    const at::Tensor row = at::arange(s[0], opts).unsqueeze(1);
    const at::Tensor col = at::arange(s[1], opts).unsqueeze(0);
    const at::Tensor masked =
        col.gt(row.remainder(s[1])) | row.remainder(7).eq(0) |
        (row.remainder(5).eq(0) & col.ge(s[1] - s[1] / 3));
    x.masked_fill_(masked, -std::numeric_limits<double>::infinity());
    return Args{x};
  };
  return spec;
}

KB_OP_TEST(Softmax, EveryPathAndDtype, SoftmaxSpec());
KB_OP_TEST(Softmax, ShortRowsSeveralPerWarp, ShortRowsSpec());
KB_OP_TEST(Softmax, SplitRowsEveryHeadLength, SplitRowsSpec());
KB_OP_TEST(Softmax, MagnitudesManyRowsAndHugeInputs, InputClassesSpec());
KB_OP_TEST(Softmax, NegativeInfinityMasks, MaskedSpec());

TEST(Softmax, ViewsOffsetByOneToEightElements) {
  for (int64_t offset = 1; offset <= 8; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(offset));
  }
}

}  // namespace
