// rope (cos / sin tensors) and rope_positions (angles from integer
// positions) through the dispatcher against float64 references
// (rope_reference.h): both layouts, both pairings, bf16/fp16/fp32, tables of
// q's dtype or float32, shared by the batch, per batch entry or per head,
// odd head counts (k with fewer or more heads than q), head dims that force
// 8-, 4-, 2- and 1-element vectors (d = 80, 40, 20, 6, 2), views one element
// in (scalar accesses), positions up to 2^17 (float32 angles would be off
// by 1e-2 rad there), then tiny and near-max inputs, more than 65,535
// tokens, more than 2^31 elements, and rejected inputs.
#include <ATen/ATen.h>

#include <string>

#include "kbuild/harness/op_test.h"
#include "rope_reference.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

// [b, s, q heads, k heads, d]: Qwen3-8B prefill and decode heads (32 / 8 of
// 128), odd head counts, k with more heads than q, narrow vector widths, a
// prime token count past what the GPU holds at once, and odd head counts
// over more than two waves of a thread a slot (655k threads: threads take
// slots in turn, staged in shared memory with 16-byte vectors).
std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 7, 32, 8, 128}, {2, 33, 5, 3, 128}, {64, 1, 32, 8, 128},  {3, 17, 4, 4, 64},
          {2, 10, 3, 5, 64},  {1, 300, 2, 1, 80}, {2, 9, 3, 1, 40},     {1, 5, 2, 2, 20},
          {2, 9, 3, 1, 6},    {1, 1, 1, 1, 2},    {4, 129, 7, 3, 256},  {1, 4099, 2, 1, 128},
          {2, 8191, 5, 3, 128}};
}

std::vector<kb::harness::Case> Cases() {
  auto cases = kb::harness::MakeCases(Shapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases({{2, 33, 5, 3, 128}, {1, 300, 2, 1, 80}},
                                        {at::kBFloat16, at::kFloat}, {.offset_view = true})) {
    cases.push_back(c);
  }
  return cases;
}

// Which cos / sin the table op gets.
enum class Table {
  kShared,       // [s, d] of q's dtype (transformers passes q's dtype)
  kBatchFp32,    // [b, s, d] float32
  kBroadcast,    // [1, s, d] of q's dtype
  kPerHeadFp32,  // [b, s, hq * d] float32 (diffusers' LTX-Video tables); k has q's heads
};

std::string TableName(Table t) {
  switch (t) {
    case Table::kShared:
      return "[s, d]";
    case Table::kBatchFp32:
      return "[b, s, d] fp32";
    case Table::kBroadcast:
      return "[1, s, d]";
    case Table::kPerHeadFp32:
      return "[b, s, h * d] fp32";
  }
  return "?";
}

OpSpec TableSpec(Table table, bool interleaved, bool heads_first) {
  OpSpec spec;
  spec.test = std::string("rope ") + TableName(table) +
              (interleaved ? " interleaved " : " half-split ") + LayoutName(heads_first);
  spec.op = kb::harness::ProjectOp("rope");
  spec.cases = Cases();
  if (table == Table::kPerHeadFp32) {
    for (auto& c : spec.cases) c.shape[3] = c.shape[2];
  }
  spec.make_args = [table, interleaved, heads_first](ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    at::Tensor q = MakeHeads(f, r, r.hq, heads_first);
    at::Tensor k = MakeHeads(f, r, r.hk, heads_first);
    std::vector<int64_t> shape;
    std::optional<at::ScalarType> dtype;  // q's
    switch (table) {
      case Table::kShared:
        shape = {r.s, r.d};
        break;
      case Table::kBatchFp32:
        shape = {r.b, r.s, r.d};
        dtype = at::kFloat;
        break;
      case Table::kBroadcast:
        shape = {1, r.s, r.d};
        break;
      case Table::kPerHeadFp32:
        shape = {r.b, r.s, r.hq * r.d};
        dtype = at::kFloat;
        break;
    }
    return Args{q,
                k,
                f.Param(shape, dtype),
                f.Param(shape, dtype),
                interleaved,
                std::string(LayoutName(heads_first))};
  };
  spec.reference = TableReference;
  return spec;
}

// Positions: [s] shared by the batch (prefill: 0..s-1 plus an offset) or
// [b, s] per batch entry (decode: random positions up to 2^17).
OpSpec PositionsSpec(bool per_batch, double theta, bool interleaved, bool heads_first) {
  OpSpec spec;
  spec.test = std::string("rope_positions ") + (per_batch ? "[b, s]" : "[s]") +
              " theta=" + std::to_string(static_cast<int64_t>(theta)) +
              (interleaved ? " interleaved " : " half-split ") + LayoutName(heads_first);
  spec.op = kb::harness::ProjectOp("rope_positions");
  spec.cases = Cases();
  spec.make_args = [per_batch, theta, interleaved, heads_first](ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    at::Tensor q = MakeHeads(f, r, r.hq, heads_first);
    at::Tensor k = MakeHeads(f, r, r.hk, heads_first);
    const auto longs = q.options().dtype(at::kLong);
    const at::Tensor positions = per_batch ? f.Indices({r.b, r.s}, 0, int64_t{1} << 17)
                                           : at::arange(r.s, longs) + 4093;
    return Args{q, k, positions, theta, interleaved, std::string(LayoutName(heads_first))};
  };
  spec.reference = PositionsReference;
  return spec;
}

TEST(Rope, TablesEveryKindPairingAndLayout) {
  for (Table table : {Table::kShared, Table::kBatchFp32, Table::kBroadcast, Table::kPerHeadFp32}) {
    for (bool interleaved : {false, true}) {
      for (bool heads_first : {false, true}) {
        kb::harness::ExpectOpPasses(TableSpec(table, interleaved, heads_first));
      }
    }
  }
}

TEST(Rope, PositionsEveryPairingAndLayout) {
  for (bool interleaved : {false, true}) {
    for (bool heads_first : {false, true}) {
      kb::harness::ExpectOpPasses(PositionsSpec(false, 1e6, interleaved, heads_first));
      kb::harness::ExpectOpPasses(PositionsSpec(true, 1e4, interleaved, heads_first));
    }
  }
}

// Beyond magnitude 1 and the grid limits (kbuild/harness/case.h): tiny
// inputs with an atol scaled to them; more than 65,535 tokens (a long
// sequence, and a batch of 70,001 single tokens); for rope_positions also
// inputs near each dtype's max (|cos|, |sin| <= 1 keep the outputs finite;
// random tables would not) and one case past 2^31 elements of q (64-bit
// offsets; ~100 GB of GPU memory, ~1 min).
std::vector<kb::harness::Case> InputClassCases(bool near_max_and_huge) {
  const std::vector<std::vector<int64_t>> shapes = {{2, 33, 5, 3, 128}, {1, 300, 2, 1, 80}};
  auto cases = TinyCases(shapes);
  for (auto& c : kb::harness::MakeCases({{1, 100003, 2, 1, 64}, {70001, 1, 4, 1, 128}},
                                        {at::kBFloat16, at::kFloat}))
    cases.push_back(c);
  if (!near_max_and_huge) return cases;
  // atol scaled as for tiny inputs: where x1 cos - x2 sin cancels, fp32's
  // cos / sin (one ulp) leave ~1e-7 of the inputs' magnitude, which the
  // unscaled atol of 1e-5 cannot hold at 2e37 (seen on the H200).
  for (auto& c : kb::harness::NearMaxCases(shapes, {at::kBFloat16, at::kHalf, at::kFloat})) {
    c.tolerance = ScaledTolerance(c.dtype, c.magnitude);
    cases.push_back(c);
  }
  for (auto& c : kb::harness::MakeCases({{1, (int64_t{1} << 21) + 1, 8, 1, 128}}, {at::kBFloat16}))
    cases.push_back(c);
  return cases;
}

TEST(Rope, TinyNearMaxManyTokensAndHugeInputs) {
  OpSpec tables = TableSpec(Table::kBatchFp32, false, false);
  tables.cases = InputClassCases(false);
  kb::harness::ExpectOpPasses(tables);
  OpSpec positions = PositionsSpec(true, 1e6, false, true);
  positions.cases = InputClassCases(true);
  kb::harness::ExpectOpPasses(positions);
}

TEST(Rope, RejectsStridedHeadDim) {
  OpSpec spec = TableSpec(Table::kShared, false, false);
  spec.cases = kb::harness::MakeCases({{2, 9, 4, 2, 64}}, {at::kBFloat16},
                                      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

// k's head_dim differs from q's, and a table of the wrong length.
TEST(Rope, RejectsMismatchedShapes) {
  const auto rejected =
      kb::harness::MakeCases({{2, 9, 4, 2, 64}}, {at::kBFloat16}, {.expects_rejection = true});
  OpSpec k_dim = TableSpec(Table::kShared, false, false);
  k_dim.cases = rejected;
  k_dim.make_args = [](ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    return Args{f.InPlace({r.b, r.s, r.hq, r.d}),
                f.InPlace({r.b, r.s, r.hk, r.d + 2}),
                f.Param({r.s, r.d}),
                f.Param({r.s, r.d}),
                false,
                std::string("bshd")};
  };
  kb::harness::ExpectOpPasses(k_dim);
  OpSpec short_table = k_dim;
  short_table.make_args = [](ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    return Args{f.InPlace({r.b, r.s, r.hq, r.d}),
                f.InPlace({r.b, r.s, r.hk, r.d}),
                f.Param({r.s, r.d / 2}),
                f.Param({r.s, r.d / 2}),
                false,
                std::string("bshd")};
  };
  kb::harness::ExpectOpPasses(short_table);
}

}  // namespace
