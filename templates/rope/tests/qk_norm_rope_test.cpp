// qk_norm_rope (RMSNorm of each head of q and k, then rope, in one launch)
// through the dispatcher against a float64 reference of the two ops it
// replaces: the normalized head (not rounded: the kernel keeps it in fp32),
// then rotated by the tables (rope_reference.h). Both pairings and layouts,
// bf16/fp16/fp32, tables and weights of q's dtype or float32, head_dim 64 /
// 128 / 256 (4-32 lanes a head), Qwen3-8B prefill and decode heads, odd head
// counts, tiny inputs (eps sets the scale), large and near-max ones (the
// norm brings them to ~1), more than 65,535 tokens, and rejected inputs: a
// head_dim the fused kernel does not take, and views one element in.
// qk_norm_rope_to_cache: the same with k's rows written to a key cache at
// a device-held length, a decode step's and a prefill's, filling the cache
// to its last slot and running past it.
#include <ATen/ATen.h>

#include <string>

#include "kbuild/harness/op_test.h"
#include "rope_reference.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

constexpr double kEps = 1e-6;

// [b, s, q heads, k heads, d].
std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 7, 32, 8, 128}, {2, 33, 5, 3, 128}, {64, 1, 32, 8, 128},
          {3, 17, 4, 4, 64},  {4, 129, 7, 3, 256}, {1, 4099, 2, 1, 128}};
}

// fp32_params: the tables [b, s, d] and the weights in float32; else [s, d]
// tables and weights of q's dtype (transformers' Qwen3).
OpSpec Spec(bool fp32_params, bool interleaved, bool heads_first) {
  OpSpec spec;
  spec.test = std::string("qk_norm_rope ") + (fp32_params ? "fp32 params" : "params of q's dtype") +
              (interleaved ? " interleaved " : " half-split ") + LayoutName(heads_first);
  spec.op = kb::harness::ProjectOp("qk_norm_rope");
  spec.cases = kb::harness::MakeCases(Shapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  spec.make_args = [fp32_params, interleaved, heads_first](ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    at::Tensor q = MakeHeads(f, r, r.hq, heads_first);
    at::Tensor k = MakeHeads(f, r, r.hk, heads_first);
    const std::optional<at::ScalarType> params =
        fp32_params ? std::optional<at::ScalarType>(at::kFloat) : std::nullopt;
    const std::vector<int64_t> table =
        fp32_params ? std::vector<int64_t>{r.b, r.s, r.d} : std::vector<int64_t>{r.s, r.d};
    return Args{q,
                k,
                f.Param({r.d}, params),
                f.Param({r.d}, params),
                f.Param(table, params),
                f.Param(table, params),
                kEps,
                interleaved,
                std::string(LayoutName(heads_first))};
  };
  spec.reference = QkNormRopeReference;
  return spec;
}

TEST(QkNormRope, EveryPairingLayoutAndParamDtype) {
  for (bool fp32_params : {false, true}) {
    for (bool interleaved : {false, true}) {
      for (bool heads_first : {false, true}) {
        kb::harness::ExpectOpPasses(Spec(fp32_params, interleaved, heads_first));
      }
    }
  }
}

// Tiny heads (mean(x^2) = 1e-8, far below eps), large and near-max ones
// (the norm scales them back to ~1: only its sum of squares must not
// overflow, which fp16's max / 16 does not in fp32), and more than 65,535
// tokens.
TEST(QkNormRope, TinyLargeNearMaxAndManyTokens) {
  OpSpec spec = Spec(false, false, false);
  const std::vector<std::vector<int64_t>> shapes = {{2, 33, 5, 3, 128}, {3, 17, 4, 4, 64}};
  const std::vector<at::ScalarType> dtypes = {at::kBFloat16, at::kHalf, at::kFloat};
  spec.cases = kb::harness::MakeCases(shapes, dtypes, {.magnitude = kb::harness::kTinyMagnitude});
  for (auto& c : kb::harness::MakeCases(shapes, dtypes,
                                        {.magnitude = kb::harness::kLargeMagnitude}))
    spec.cases.push_back(c);
  for (auto& c : kb::harness::NearMaxCases(shapes, {at::kHalf})) spec.cases.push_back(c);
  // 60000 tokens of 7 + 3 heads pass QK_NORM_ROPE_GROUP_ABOVE_WAVES on an
  // H100 / H200: four heads a thread, q's and k's last group partial.
  for (auto& c : kb::harness::MakeCases(
           {{1, 100003, 2, 1, 64}, {70001, 1, 4, 1, 128}, {1, 60000, 7, 3, 128}},
           {at::kBFloat16, at::kFloat}))
    spec.cases.push_back(c);
  kb::harness::ExpectOpPasses(spec);
}

// head_dim 80 (5 lanes of 16-byte pairs: not a power of two) and q, k and
// the tables one element past a 16-byte boundary: refused with the hint to
// call rms_norm, then rope.
TEST(QkNormRope, RejectsHeadDimsAndViewsTheFusedKernelDoesNotTake) {
  OpSpec spec = Spec(false, false, false);
  spec.cases = kb::harness::MakeCases({{2, 9, 4, 2, 80}}, {at::kBFloat16},
                                      {.expects_rejection = true});
  for (auto& c : kb::harness::MakeCases({{2, 9, 4, 2, 128}}, {at::kBFloat16},
                                        {.offset_view = true, .expects_rejection = true}))
    spec.cases.push_back(c);
  kb::harness::ExpectOpPasses(spec);
}

// qk_norm_rope_to_cache cases: [b, s, q heads, k heads, d, cache slots].
// The length drawn per trial: from [0, slots - s] (every token fits), or
// with past_end from [slots - s + 1, slots] (the last tokens fall off).
OpSpec CacheSpec(bool interleaved, bool heads_first, bool past_end) {
  OpSpec spec;
  spec.test = std::string("qk_norm_rope_to_cache") + (interleaved ? " interleaved " : " half-split ") +
              LayoutName(heads_first) + (past_end ? " past the cache's end" : "");
  spec.op = kb::harness::ProjectOp("qk_norm_rope_to_cache");
  spec.cases = kb::harness::MakeCases(
      {{8, 1, 32, 8, 128, 2050}, {2, 33, 5, 3, 128, 40}, {1, 7, 4, 2, 64, 7}, {3, 17, 4, 4, 256, 20}},
      {at::kBFloat16, at::kHalf, at::kFloat});
  spec.make_args = [interleaved, heads_first, past_end](ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    const int64_t slots = f.test_case().shape[5];
    at::Tensor q = MakeHeads(f, r, r.hq, heads_first);
    at::Tensor k = heads_first ? f.Input({r.b, r.hk, r.s, r.d}) : f.Input({r.b, r.s, r.hk, r.d});
    const int64_t fits = slots - r.s;  // the largest length at which every token fits
    at::Tensor length =
        past_end ? f.Indices({1}, fits + 1, slots + 1) : f.Indices({1}, 0, fits + 1);
    return Args{q,
                k,
                f.Param({r.d}),
                f.Param({r.d}),
                f.Param({r.s, r.d}),
                f.Param({r.s, r.d}),
                kEps,
                interleaved,
                std::string(LayoutName(heads_first)),
                f.InPlace({r.b, r.hk, slots, r.d}),
                length};
  };
  spec.reference = QkNormRopeToCacheReference;
  return spec;
}

TEST(QkNormRopeToCache, EveryPairingAndLayout) {
  for (bool interleaved : {false, true}) {
    for (bool heads_first : {false, true}) {
      kb::harness::ExpectOpPasses(CacheSpec(interleaved, heads_first, false));
    }
  }
}

TEST(QkNormRopeToCache, TokensPastTheLastSlotAreDropped) {
  kb::harness::ExpectOpPasses(CacheSpec(false, false, true));
}

// A cache one element past a 16-byte boundary (every tensor is, in an offset
// view): refused with the alignment hint.
TEST(QkNormRopeToCache, RejectsMisalignedViews) {
  OpSpec spec = CacheSpec(false, false, false);
  spec.cases = kb::harness::MakeCases({{2, 9, 4, 2, 128, 16}}, {at::kBFloat16},
                                      {.offset_view = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
