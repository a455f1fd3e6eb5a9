// gated_residual (out = x + gate * y) through the dispatcher against a
// float64 reference: gate per sample ([b, hidden]), per token, as chunks of
// LTX-Video's [b, tokens, 6, hidden], broadcast, and float32 under bf16 /
// fp16 x; odd hidden sizes (rows split into head, body and tail, x, y and
// out alike), misaligned x / y / gate views, rows of more than 256 vectors
// (several blocks per row), then tiny, large, > 65,535 rows and > 2^31
// elements, the sizes that read evict-first, and rejected layouts.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "kbuild/harness/op_test.h"
#include "modulation_cases.h"
#include "references.h"
#include "split_rows.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 1, 64},   {2, 7, 2048},  {3, 33, 2047},  {2, 129, 4096}, {5, 77, 100}, {2, 1031, 24},
          {4, 9, 9999}, {2, 5, 40001}, {2, 600, 2048}, {3, 17, 3072},  {1, 4099, 1}};
}

OpSpec GatedResidualSpec(Modulation gate, bool fp32_gate = false) {
  OpSpec spec;
  spec.test = "gated_residual " + ModulationName(gate) + (fp32_gate ? ", fp32 gate" : "");
  spec.op = kb::harness::ProjectOp("gated_residual");
  spec.cases = kb::harness::MakeCases(Shapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : OffsetViewCases()) spec.cases.push_back(c);
  spec.make_args = [gate, fp32_gate](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::ScalarType dtype = fp32_gate ? at::kFloat : f.test_case().dtype;
    return Args{f.Input(s), f.Input(s), MakeModulation(f, s, gate, dtype, 2)};
  };
  spec.reference = [](const Args& a) {
    return GatedResidualReference(a[0].toTensor(), a[1].toTensor(), a[2].toTensor());
  };
  return spec;
}

OpSpec SplitRowsSpec() {
  OpSpec spec = GatedResidualSpec(Modulation::kToken);
  spec.test = "gated_residual split rows";
  spec.cases =
      kb::harness::MakeCases(AsOneSample(SplitRowShapes()), {at::kBFloat16, at::kHalf, at::kFloat});
  return spec;
}

// x and y `offset` elements into rows of hidden + 8 (the fresh output is
// aligned: no split serves all three, so narrower vectors, down to scalars),
// or the gate `offset` elements into its row (x keeps 16-byte vectors, the
// gate is read a scalar at a time).
OpSpec ViewOffsetSpec(int64_t xy_offset, int64_t gate_offset) {
  OpSpec spec = GatedResidualSpec(Modulation::kSample);
  spec.test = "gated_residual x, y offset " + std::to_string(xy_offset) + ", gate offset " +
              std::to_string(gate_offset);
  spec.cases = kb::harness::MakeCases({{3, 1365, 2047}, {2, 37, 4096}, {5, 819, 64}},
                                      {at::kBFloat16, at::kFloat});
  spec.make_args = [xy_offset, gate_offset](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor x = f.Input({s[0], s[1], s[2] + 8}).narrow(2, xy_offset, s[2]);
    const at::Tensor y = f.Input({s[0], s[1], s[2] + 8}).narrow(2, xy_offset, s[2]);
    const at::Tensor gate = f.Param({s[0], s[2] + 8}).narrow(1, gate_offset, s[2]);
    return Args{x, y, gate};
  };
  return spec;
}

// Tiny values need their own tolerance: out scales with x (case.h). Large
// ones (1e3: gate * y stays inside fp16's range; near the dtype's max it
// would not, the gate being ~1 but not below 1), more than 65,535 rows,
// more than 2^31 elements.
OpSpec InputClassesSpec() {
  OpSpec spec = GatedResidualSpec(Modulation::kSample);
  spec.test = "gated_residual input classes";
  const std::vector<std::vector<int64_t>> shapes = {{2, 7, 2047}, {2, 129, 4096}};
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16, at::kHalf, at::kFloat},
                                      {.magnitude = kb::harness::kTinyMagnitude});
  for (auto& c : spec.cases) {
    c.tolerance = kb::harness::Tolerance{1e-6, kb::harness::CaseTolerance(c).rtol};
  }
  for (auto& c : kb::harness::MakeCases(shapes, {at::kBFloat16, at::kHalf, at::kFloat},
                                        {.magnitude = kb::harness::kLargeMagnitude})) {
    spec.cases.push_back(c);
  }
  for (auto& c : GridLimitCases()) spec.cases.push_back(c);
  return spec;
}

// Sizes that read x and y (and a per-token gate) evict-first.
OpSpec EvictFirstSpec(Modulation gate) {
  OpSpec spec = GatedResidualSpec(gate);
  spec.test += ", evict-first sizes";
  spec.cases = EvictFirstCases();
  return spec;
}

KB_OP_TEST(GatedResidual, PerSample, GatedResidualSpec(Modulation::kSample));
KB_OP_TEST(GatedResidual, PerSampleFp32, GatedResidualSpec(Modulation::kSample, true));
KB_OP_TEST(GatedResidual, PerToken, GatedResidualSpec(Modulation::kToken));
KB_OP_TEST(GatedResidual, LtxChunk, GatedResidualSpec(Modulation::kChunk));
KB_OP_TEST(GatedResidual, LtxChunkFp32, GatedResidualSpec(Modulation::kChunk, true));
KB_OP_TEST(GatedResidual, BroadcastRow, GatedResidualSpec(Modulation::kBroadcast));
KB_OP_TEST(GatedResidual, SplitRowsEveryHeadLength, SplitRowsSpec());
KB_OP_TEST(GatedResidual, TinyLargeManyRowsAndHuge, InputClassesSpec());
KB_OP_TEST(GatedResidual, PerSampleEvictFirstSizes, EvictFirstSpec(Modulation::kSample));
KB_OP_TEST(GatedResidual, PerTokenEvictFirstSizes, EvictFirstSpec(Modulation::kToken));

TEST(GatedResidual, ViewsOffsetByOneToEightElements) {
  for (int64_t offset = 1; offset <= 8; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(offset, 0));
  }
  for (int64_t offset = 1; offset <= 7; ++offset) {
    kb::harness::ExpectOpPasses(ViewOffsetSpec(0, offset));
  }
}

TEST(GatedResidual, RejectsStridedLastDimensionAndMismatchedY) {
  OpSpec spec = GatedResidualSpec(Modulation::kSample);
  spec.cases = kb::harness::MakeCases({{2, 4, 64}}, {at::kBFloat16},
                                      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
  spec.cases = kb::harness::MakeCases({{2, 4, 64}}, {at::kBFloat16}, {.expects_rejection = true});
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Input({s[0], s[1] + 1, s[2]}), f.Param({s[0], s[2]})};
  };
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
