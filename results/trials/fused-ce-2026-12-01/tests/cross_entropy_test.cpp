// cross_entropy through the dispatcher against a float64 reference
// (logsumexp(x) - x[target], 0 where target == ignore_index, computed in
// float64 from the same inputs): bf16 / fp16 / fp32 logits, vocabularies from
// 1 to 152064 (odd sizes: split rows), Qwen3's 151936 on every launch path
// (a cluster of 8 / 4 / 2 blocks per row, a block per row), short rows on
// the group paths, misaligned and offset views, magnitudes from 1e-4 to each
// dtype's max / 16, -inf (masked) vocabulary padding, ignore_index (the
// default and a custom one, all rows ignored), targets on the first and last
// class (split rows' head and tail), more than 65,535 rows, past 2^31
// elements, and rejected inputs (stride-2 vocabulary, int32 or misshapen
// targets). The output is float32 whatever the logits' dtype, so every case
// is held to float32's tolerance.
#include <ATen/ATen.h>

#include <limits>
#include <string>

#include "kbuild/harness/op_test.h"
#include "split_rows.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;
using Shape = std::vector<int64_t>;

const std::vector<at::ScalarType> kDtypes = {at::kBFloat16, at::kHalf,
                                             at::kFloat};
constexpr int64_t kIgnore = -100;
constexpr int64_t kQwen = 151936;

// Targets for `rows` rows of `cols` classes: rows 6k -> the last class
// (< valid_cols), 6k + 1 -> class 0, 6k + 2 -> ignore_index, the rest
// pseudo-random classes in [0, valid_cols) drawn from a seeded input (fresh
// each trial). Every row ignored when all_ignored.
at::Tensor Targets(ArgFactory& f, int64_t rows, int64_t valid_cols,
                   int64_t ignore_index, bool all_ignored = false) {
  const at::Tensor u = f.Input({rows}, at::kFloat).to(at::kDouble);
  const auto opts = at::TensorOptions().device(u.device()).dtype(at::kLong);
  at::Tensor t = ((u.abs() * 7919.0).frac() * static_cast<double>(valid_cols))
                     .floor()
                     .to(at::kLong)
                     .clamp(0, valid_cols - 1);
  const at::Tensor r = at::arange(rows, opts);
  t = at::where(r.remainder(6).eq(0), at::full_like(t, valid_cols - 1), t);
  t = at::where(r.remainder(6).eq(1), at::zeros_like(t), t);
  t = at::where(r.remainder(6).eq(2), at::full_like(t, ignore_index), t);
  if (all_ignored) t.fill_(ignore_index);
  return t.contiguous();
}

// float64 reference, on the GPU: logsumexp - the target logit, 0 if ignored.
std::vector<at::Tensor> Reference(const Args& a) {
  const at::Tensor x = a[0].toTensor().to(at::kDouble);
  const at::Tensor t = a[1].toTensor();
  const int64_t ignore_index = a[2].toInt();
  const at::Tensor ignored = t.eq(ignore_index);
  const at::Tensor safe = t.masked_fill(ignored, 0);
  const at::Tensor picked = x.gather(-1, safe.unsqueeze(-1)).squeeze(-1);
  const at::Tensor loss = at::logsumexp(x, {-1}) - picked;
  return {loss.masked_fill(ignored, 0.0)};
}

// Every case: float32 output, float32 tolerance.
std::vector<kb::harness::Case> Fp32Tolerance(std::vector<kb::harness::Case> cases) {
  for (auto& c : cases) c.tolerance = kb::harness::Tolerance{1e-5, 1e-5};
  return cases;
}

void Append(std::vector<kb::harness::Case>& to, std::vector<kb::harness::Case> from) {
  for (auto& c : from) to.push_back(c);
}

// Rows x vocab, and the path each takes (132 SMs, bf16 vectors of 8):
// {1, 151936} {16, 151936} a cluster of 8, {40, 151936} of 4, {100, 151936}
// of 2, {517, 151936} a block per row; {3, 151937} / {1, 152063} a cluster
// on split rows; Llama 3 (128256), Qwen2 (152064), GPT-2 (50257, odd),
// 32000, 49155; short rows on 4-32 lanes.
std::vector<Shape> Shapes() {
  return {{1, 1},        {1, 7},        {3, 64},       {7, 2047},
          {33, 100},     {9001, 128},   {129, 4096},   {5, 5120},
          {300, 40000},  {1, kQwen},    {16, kQwen},   {40, kQwen},
          {100, kQwen},  {517, kQwen},  {3, kQwen + 1}, {1, 152063},
          {4, 128256},   {3, 152064},   {9, 50257},    {2, 32000},
          {2, 49155}};
}

OpSpec CrossEntropySpec() {
  OpSpec spec;
  spec.test = "cross_entropy";
  spec.op = kb::harness::ProjectOp("cross_entropy");
  spec.cases = kb::harness::MakeCases(Shapes(), kDtypes);
  // Offset views: logits start one element past an aligned address, so
  // every row splits (head, body, tail) and clusters run on split rows.
  Append(spec.cases, kb::harness::MakeCases(
                         {{7, 2047}, {65, 4096}, {3, kQwen + 1}, {129, kQwen}},
                         {at::kBFloat16, at::kFloat}, {.offset_view = true}));
  spec.cases = Fp32Tolerance(spec.cases);
  spec.make_args = [](ArgFactory& f) {
    const Shape& s = f.test_case().shape;
    at::Tensor x = f.Input(s);
    return Args{x, Targets(f, s[0], s[1], kIgnore), kIgnore};
  };
  spec.reference = Reference;
  return spec;
}

// Odd row lengths (split_rows.h: every head length on every path).
OpSpec SplitRowsSpec() {
  OpSpec spec = CrossEntropySpec();
  spec.test = "cross_entropy split rows";
  spec.cases = Fp32Tolerance(kb::harness::MakeCases(SplitRowShapes(), kDtypes));
  return spec;
}

// Rows `offset` elements into rows of cols + 8: offsets 1-7 put rows at
// every phase (split rows, or 8-byte vectors where the stride allows), 8
// keeps them aligned.
OpSpec ViewOffsetSpec(int64_t offset) {
  OpSpec spec = CrossEntropySpec();
  spec.test = "cross_entropy x offset " + std::to_string(offset);
  spec.cases = Fp32Tolerance(kb::harness::MakeCases(
      {{4099, 2047}, {37, 4096}, {4099, 64}, {3, kQwen}, {133, kQwen}},
      {at::kBFloat16, at::kFloat}));
  spec.make_args = [offset](ArgFactory& f) {
    const Shape& s = f.test_case().shape;
    at::Tensor x = f.Input({s[0], s[1] + 8}).narrow(1, offset, s[1]);
    return Args{x, Targets(f, s[0], s[1], kIgnore), kIgnore};
  };
  return spec;
}

// Magnitudes: tiny (near-uniform rows: loss ~ log(vocab)), 1e3 and 1e4
// (exp overflows fp32 unless the running max is subtracted), each dtype's
// max / 16 (x - max and max - x[target] stay finite in float32). More than
// 65,535 rows; past 2^31 elements.
OpSpec InputClassesSpec() {
  OpSpec spec = CrossEntropySpec();
  spec.test = "cross_entropy input classes";
  const std::vector<Shape> shapes = {
      {7, 2047}, {129, 4096}, {9001, 128}, {3, kQwen}, {140, kQwen}};
  spec.cases.clear();
  for (double magnitude : {kb::harness::kTinyMagnitude,
                           kb::harness::kLargeMagnitude, 1e4}) {
    Append(spec.cases,
           kb::harness::MakeCases(shapes, kDtypes, {.magnitude = magnitude}));
  }
  Append(spec.cases, kb::harness::NearMaxCases(shapes, kDtypes));
  Append(spec.cases, kb::harness::MakeCases(kb::harness::ManyRowShapes(),
                                            {at::kBFloat16, at::kFloat}));
  Append(spec.cases,
         kb::harness::MakeCases(kb::harness::HugeShapes(), {at::kBFloat16}));
  spec.cases = Fp32Tolerance(spec.cases);
  return spec;
}

// A custom ignore_index that is a valid class (5): rows 6k + 2 target it and
// get 0; and every row ignored (the row is never read: all zeros).
OpSpec IgnoreIndexSpec(bool all_ignored) {
  OpSpec spec = CrossEntropySpec();
  spec.test = all_ignored ? "cross_entropy all ignored" : "cross_entropy ignore_index 5";
  spec.cases = Fp32Tolerance(kb::harness::MakeCases(
      {{7, 2047}, {9001, 128}, {5, kQwen}, {140, kQwen}, {3, kQwen + 1}},
      {at::kBFloat16, at::kFloat}));
  spec.make_args = [all_ignored](ArgFactory& f) {
    const Shape& s = f.test_case().shape;
    const int64_t ignore_index = all_ignored ? kIgnore : 5;
    return Args{f.Input(s), Targets(f, s[0], s[1], ignore_index, all_ignored),
                ignore_index};
  };
  return spec;
}

// Vocabulary padding masked with -inf (the last eighth of each row, and
// every 7th row from its first quarter on); targets stay unmasked.
OpSpec MaskedSpec() {
  OpSpec spec = CrossEntropySpec();
  spec.test = "cross_entropy -inf padding";
  spec.cases = Fp32Tolerance(kb::harness::MakeCases(
      {{4099, 64}, {2048, 2047}, {5, kQwen}, {140, kQwen}, {300, 40000}},
      kDtypes));
  spec.make_args = [](ArgFactory& f) {
    const Shape& s = f.test_case().shape;
    const int64_t valid = s[1] - s[1] / 8;
    at::Tensor x = f.Input(s);
    const auto opts = at::TensorOptions().device(x.device()).dtype(at::kLong);
    const at::Tensor row = at::arange(s[0], opts).unsqueeze(1);
    const at::Tensor col = at::arange(s[1], opts).unsqueeze(0);
    const at::Tensor masked =
        col.ge(valid) | (row.remainder(7).eq(3) & col.ge(s[1] / 4) & col.lt(valid - 1));
    x.masked_fill_(masked, -std::numeric_limits<double>::infinity());
    // Rows 7k + 3 keep [0, vocab / 4) and valid - 1 unmasked: targets there.
    at::Tensor t = Targets(f, s[0], valid, kIgnore);
    const at::Tensor narrow_rows = at::arange(s[0], opts).remainder(7).eq(3);
    const at::Tensor allowed = t.lt(s[1] / 4) | t.eq(valid - 1) | t.eq(kIgnore);
    t = at::where(narrow_rows & allowed.logical_not(), at::zeros_like(t), t);
    return Args{x, t, kIgnore};
  };
  return spec;
}

// Refused with a message, never read: a stride-2 vocabulary (64 columns),
// int32 targets (65 columns), targets of the wrong shape (66 columns).
OpSpec RejectionSpec() {
  OpSpec spec = CrossEntropySpec();
  spec.test = "cross_entropy rejects";
  spec.cases = kb::harness::MakeCases(
      {{4, 64}}, {at::kBFloat16}, {.non_contiguous = true, .expects_rejection = true});
  Append(spec.cases, kb::harness::MakeCases({{4, 65}, {4, 66}}, {at::kBFloat16},
                                            {.expects_rejection = true}));
  spec.make_args = [](ArgFactory& f) {
    const Shape& s = f.test_case().shape;
    at::Tensor x = f.Input(s);
    at::Tensor t = Targets(f, s[0], s[1], kIgnore);
    if (s[1] == 65) t = t.to(at::kInt);
    if (s[1] == 66) t = Targets(f, s[0] + 1, s[1], kIgnore);
    return Args{x, t, kIgnore};
  };
  return spec;
}

KB_OP_TEST(CrossEntropy, EveryPathAndDtype, CrossEntropySpec());
KB_OP_TEST(CrossEntropy, SplitRowsEveryHeadLength, SplitRowsSpec());
KB_OP_TEST(CrossEntropy, MagnitudesManyRowsAndHugeInputs, InputClassesSpec());
KB_OP_TEST(CrossEntropy, CustomIgnoreIndex, IgnoreIndexSpec(false));
KB_OP_TEST(CrossEntropy, AllRowsIgnored, IgnoreIndexSpec(true));
KB_OP_TEST(CrossEntropy, NegativeInfinityPadding, MaskedSpec());
KB_OP_TEST(CrossEntropy, RejectsBadInputs, RejectionSpec());

TEST(CrossEntropy, ViewsOffsetByOneToEightElements) {
  for (int64_t offset = 1; offset <= 8; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(offset));
  }
}

}  // namespace
