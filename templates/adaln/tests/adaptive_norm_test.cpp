// adaptive_norm through the dispatcher against a float64 reference: both
// norms; scale / shift per sample ([b, hidden], [b, 1, hidden]), per token
// ([b, tokens, hidden]), as chunks of LTX-Video's [b, tokens, 6, hidden]
// (rows 6 * hidden apart), broadcast from a batch of 1, and in float32 under
// bf16 / fp16 x. Shapes put every path of the row plan to work (4-32 lanes,
// a warp, a block with 1 / 2 / 4 vectors per thread, two passes), odd hidden
// sizes (rows split into head, body and tail), misaligned x and misaligned
// modulation rows; then tiny, fp16 near-max and offset (mean >> std) inputs,
// more than 65,535 rows and more than 2^31 elements, per-token sizes that read
// evict-first, and rejected layouts.
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

// [b, tokens, hidden]: b >= 2 and tokens >= 2 wherever the modulation kind
// matters, so a row read with the wrong sample or token fails.
std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 1, 64},     {2, 7, 2048},    {3, 33, 2047}, {2, 129, 4096},
          {5, 77, 100},   {2, 1031, 24},   {4, 9, 9999},  {2, 5, 40001},
          {2, 600, 2048}, {1, 4099, 1024}, {3, 17, 3072}, {2, 33, 1152}};
}

struct Variant {
  std::string norm;  // "layer" or "rms"
  Modulation modulation;
  bool fp32_modulation = false;
};

OpSpec AdaptiveNormSpec(const Variant& v) {
  OpSpec spec;
  spec.test = "adaptive_norm " + v.norm + ", " + ModulationName(v.modulation) +
              (v.fp32_modulation ? ", fp32 modulation" : "");
  spec.op = kb::harness::ProjectOp("adaptive_norm");
  spec.cases = kb::harness::MakeCases(Shapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : OffsetViewCases()) spec.cases.push_back(c);
  spec.make_args = [v](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::ScalarType dtype = v.fp32_modulation ? at::kFloat : f.test_case().dtype;
    return Args{f.Input(s), MakeModulation(f, s, v.modulation, dtype, 1),
                MakeModulation(f, s, v.modulation, dtype, 0), v.norm, 1e-6};
  };
  spec.reference = [](const Args& a) {
    return AdaptiveNormReference(a[0].toTensor(), a[1].toTensor(), a[2].toTensor(),
                                 a[3].toStringRef(), a[4].toDouble());
  };
  return spec;
}

// Odd row sizes (split_rows.h: every head length on every path) as one
// sample of many tokens, per-token modulation (read a scalar at a time).
OpSpec SplitRowsSpec(const std::string& norm) {
  OpSpec spec = AdaptiveNormSpec({norm, Modulation::kToken});
  spec.test = "adaptive_norm " + norm + " split rows";
  spec.cases =
      kb::harness::MakeCases(AsOneSample(SplitRowShapes()), {at::kBFloat16, at::kHalf, at::kFloat});
  return spec;
}

// x `x_offset` elements into rows of hidden + 8, scale and shift
// `m_offset` elements into rows of hidden + 8 (per sample). Misaligned
// modulation under aligned x: x keeps 16-byte vectors, the modulation is
// read a scalar at a time (a split at phase 0).
OpSpec ViewOffsetSpec(const std::string& norm, int64_t x_offset, int64_t m_offset) {
  OpSpec spec = AdaptiveNormSpec({norm, Modulation::kSample});
  spec.test = "adaptive_norm " + norm + " x offset " + std::to_string(x_offset) +
              ", modulation offset " + std::to_string(m_offset);
  spec.cases = kb::harness::MakeCases({{3, 1365, 2047}, {2, 37, 4096}, {5, 819, 64}},
                                      {at::kBFloat16, at::kFloat});
  spec.make_args = [norm, x_offset, m_offset](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    const at::Tensor x = f.Input({s[0], s[1], s[2] + 8}).narrow(2, x_offset, s[2]);
    const at::Tensor scale = f.Param({s[0], s[2] + 8}).narrow(1, m_offset, s[2]);
    const at::Tensor shift = f.Param({s[0], s[2] + 8}).narrow(1, m_offset, s[2]);
    return Args{x, scale, shift, norm, 1e-6};
  };
  return spec;
}

// Tiny inputs (eps sets the scale), fp16 near its max (fp32 statistics stay
// finite), > 65,535 rows, > 2^31 elements (one case, ~95 GB).
OpSpec InputClassesSpec(const std::string& norm) {
  OpSpec spec = AdaptiveNormSpec({norm, Modulation::kSample});
  spec.test = "adaptive_norm " + norm + " input classes";
  const std::vector<std::vector<int64_t>> shapes = {{2, 7, 2047}, {2, 129, 4096}, {4, 2251, 128}};
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16, at::kHalf, at::kFloat},
                                      {.magnitude = kb::harness::kTinyMagnitude});
  for (auto& c : kb::harness::NearMaxCases(shapes, {at::kHalf})) spec.cases.push_back(c);
  for (auto& c : GridLimitCases()) spec.cases.push_back(c);
  return spec;
}

// Rows whose mean is 1000 standard deviations from 0 (float32): E[x^2] -
// E[x]^2 loses the variance there (1e6 - 1e6 in float32: errors of a few
// percent); LayerNorm's two reductions (and the long rows' Welford merges)
// keep it to the float32 rounding of the mean itself (~1e-4 of the output),
// hence the case's own tolerance.
OpSpec OffsetRowsSpec() {
  OpSpec spec = AdaptiveNormSpec({"layer", Modulation::kSample});
  spec.test = "adaptive_norm layer, rows far from zero mean";
  spec.cases = kb::harness::MakeCases({{2, 7, 2048}, {2, 33, 100}, {2, 3, 40001}}, {at::kFloat});
  for (auto& c : spec.cases) c.tolerance = kb::harness::Tolerance{1e-3, 1e-3};
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s) + 1000.0, f.Param({s[0], s[2]}), f.Param({s[0], s[2]}),
                std::string("layer"), 1e-6};
  };
  return spec;
}

// Per-token rows at sizes that read x and the modulation evict-first.
OpSpec EvictFirstSpec(const std::string& norm) {
  OpSpec spec = AdaptiveNormSpec({norm, Modulation::kToken});
  spec.test = "adaptive_norm " + norm + ", per token, evict-first sizes";
  spec.cases = EvictFirstCases();
  return spec;
}

KB_OP_TEST(AdaptiveNorm, RmsPerSample, AdaptiveNormSpec({"rms", Modulation::kSample}));
KB_OP_TEST(AdaptiveNorm, RmsPerSample3d, AdaptiveNormSpec({"rms", Modulation::kSample3d}));
KB_OP_TEST(AdaptiveNorm, RmsPerToken, AdaptiveNormSpec({"rms", Modulation::kToken}));
KB_OP_TEST(AdaptiveNorm, RmsLtxChunks, AdaptiveNormSpec({"rms", Modulation::kChunk}));
KB_OP_TEST(AdaptiveNorm, RmsLtxChunksFp32, AdaptiveNormSpec({"rms", Modulation::kChunk, true}));
KB_OP_TEST(AdaptiveNorm, LayerPerSample, AdaptiveNormSpec({"layer", Modulation::kSample}));
KB_OP_TEST(AdaptiveNorm, LayerPerSampleFp32,
           AdaptiveNormSpec({"layer", Modulation::kSample, true}));
KB_OP_TEST(AdaptiveNorm, LayerPerToken, AdaptiveNormSpec({"layer", Modulation::kToken}));
KB_OP_TEST(AdaptiveNorm, LayerLtxChunks, AdaptiveNormSpec({"layer", Modulation::kChunk}));
KB_OP_TEST(AdaptiveNorm, LayerBroadcastRow, AdaptiveNormSpec({"layer", Modulation::kBroadcast}));
KB_OP_TEST(AdaptiveNorm, SplitRmsEveryHeadLength, SplitRowsSpec("rms"));
KB_OP_TEST(AdaptiveNorm, SplitLayerEveryHeadLength, SplitRowsSpec("layer"));
KB_OP_TEST(AdaptiveNorm, RmsTinyNearMaxManyRowsAndHuge, InputClassesSpec("rms"));
KB_OP_TEST(AdaptiveNorm, LayerTinyNearMaxManyRowsAndHuge, InputClassesSpec("layer"));
KB_OP_TEST(AdaptiveNorm, LayerRowsFarFromZeroMean, OffsetRowsSpec());
KB_OP_TEST(AdaptiveNorm, RmsPerTokenEvictFirstSizes, EvictFirstSpec("rms"));
KB_OP_TEST(AdaptiveNorm, LayerPerTokenEvictFirstSizes, EvictFirstSpec("layer"));

TEST(AdaptiveNorm, ViewsOffsetByOneToEightElements) {
  for (const std::string norm : {"rms", "layer"}) {
    for (int64_t offset = 1; offset <= 8; ++offset) {
      kb::harness::ExpectOpPasses(ViewOffsetSpec(norm, offset, 0));
    }
    for (int64_t offset = 1; offset <= 7; ++offset) {
      kb::harness::ExpectOpPasses(ViewOffsetSpec(norm, 0, offset));
    }
  }
}

TEST(AdaptiveNorm, RejectsStridedLastDimension) {
  OpSpec spec = AdaptiveNormSpec({"rms", Modulation::kSample});
  spec.cases = kb::harness::MakeCases({{2, 4, 64}}, {at::kBFloat16},
                                      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

// scale of [b, 3, hidden] for 4 tokens; an unknown norm name.
TEST(AdaptiveNorm, RejectsMismatchedModulationAndUnknownNorm) {
  OpSpec spec = AdaptiveNormSpec({"rms", Modulation::kSample});
  spec.cases = kb::harness::MakeCases({{2, 4, 64}}, {at::kBFloat16}, {.expects_rejection = true});
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[0], 3, s[2]}), f.Param({s[0], s[2]}), std::string("rms"),
                1e-6};
  };
  kb::harness::ExpectOpPasses(spec);
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[0], s[2]}), f.Param({s[0], s[2]}), std::string("group"),
                1e-6};
  };
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
