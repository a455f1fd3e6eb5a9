// rope_ltx_video against diffusers' LTX-Video rotary embedding
// (ltx_video_reference.h: its source rewritten in ATen), in float64: the LTX pipeline's
// coordinate scales, none (raw indices: angles up to 3e5 rad), other patch /
// base sizes and theta; channel counts with 0, 2 and 4 padding channels
// (heads * d % 6), one frequency (6 channels), odd grids, both layouts, views
// one element in. Then the same cos / sin computed in float32 as diffusers
// does, against bf16 outputs; diffusers' tables given to the table op; tiny
// inputs and a long grid.
#include <ATen/ATen.h>

#include <array>
#include <string>

#include "kbuild/harness/op_test.h"
#include "ltx_video_reference.h"
#include "rope_reference.h"

namespace {

using kb::harness::ArgFactory;
using kb::harness::Args;
using kb::harness::OpSpec;

// [b, frames, height, width, heads, d]: the LTX-Video transformer (32 heads
// of 64: 2048 channels, 2 of them padding) on a 7 x 8 x 12 latent grid and
// on 13 x 16 x 24 (512 x 768 pixels, 97 frames); 256 channels (4 padding),
// 192 (none), 6 (one frequency), 100 (2-element vectors), head_dim 128.
std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 7, 8, 12, 32, 64}, {1, 13, 16, 24, 32, 64}, {2, 3, 4, 5, 4, 64},  {1, 2, 3, 3, 3, 64},
          {1, 5, 4, 4, 1, 6},    {2, 4, 5, 7, 5, 20},     {1, 3, 4, 4, 16, 128}};
}

std::vector<kb::harness::Case> Cases() {
  auto cases = kb::harness::MakeCases(Shapes(), {at::kBFloat16, at::kHalf, at::kFloat});
  for (auto& c : kb::harness::MakeCases({{1, 7, 8, 12, 32, 64}, {2, 4, 5, 7, 5, 20}},
                                        {at::kBFloat16, at::kFloat}, {.offset_view = true})) {
    cases.push_back(c);
  }
  return cases;
}

at::Tensor MakeLtxHeads(ArgFactory& f, bool heads_first) {
  const auto& s = f.test_case().shape;
  const int64_t tokens = s[1] * s[2] * s[3];
  return heads_first ? f.InPlace({s[0], s[4], tokens, s[5]})
                     : f.InPlace({s[0], tokens, s[4], s[5]});
}

// cos_dtype: float64, or float32 as diffusers computes it.
OpSpec LtxSpec(const std::string& name, const LtxRope& rope, bool heads_first,
               at::ScalarType cos_dtype = at::kDouble) {
  OpSpec spec;
  spec.test = "rope_ltx_video " + name + " " + LayoutName(heads_first);
  spec.op = kb::harness::ProjectOp("rope_ltx_video");
  spec.cases = Cases();
  spec.make_args = [rope, heads_first](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{MakeLtxHeads(f, heads_first),
                MakeLtxHeads(f, heads_first),
                s[1],
                s[2],
                s[3],
                CoordScale(rope),
                rope.theta,
                std::string(LayoutName(heads_first))};
  };
  spec.reference = [rope, heads_first, cos_dtype](const Args& a) {
    std::vector<at::Tensor> out;
    for (int i = 0; i < 2; ++i) {
      const at::Tensor heads = TokensFirst(a[i].toTensor(), heads_first);  // [B, S, h, d]
      const at::Tensor x = heads.flatten(2);
      const auto [cos, sin] = LtxVideoCosSin(rope, x.size(2), x.size(0), a[2].toInt(), a[3].toInt(),
                                             a[4].toInt(), x.options().dtype(cos_dtype));
      const at::Tensor y = ApplyRotaryEmb(x, cos.to(at::kDouble), sin.to(at::kDouble));
      out.push_back(TokensFirst(y.unflatten(2, {heads.size(2), heads.size(3)}), heads_first));
    }
    return out;
  };
  return spec;
}

LtxRope OtherSizes() {
  LtxRope rope;
  rope.base_num_frames = 16;
  rope.base_height = 1024;
  rope.base_width = 512;
  rope.patch_size = 2;
  rope.patch_size_t = 2;
  rope.theta = 1000.0;
  rope.rope_interpolation_scale = std::array<double, 3>{1.0 / 3.0, 8.0, 16.0};
  return rope;
}

TEST(LtxVideoRope, MatchesDiffusersEveryScaleAndLayout) {
  LtxRope raw;
  raw.rope_interpolation_scale.reset();
  for (bool heads_first : {false, true}) {
    kb::harness::ExpectOpPasses(LtxSpec("pipeline scale", LtxRope{}, heads_first));
    kb::harness::ExpectOpPasses(LtxSpec("raw coordinates", raw, heads_first));
    kb::harness::ExpectOpPasses(LtxSpec("other patch, base and theta", OtherSizes(), heads_first));
  }
}

// diffusers' own float32 cos / sin: at the pipeline's scale the angles stay
// below 2e4 rad, where float32 cos / sin are off by up to 3.6e-3 (torch
// 2.11 on the CPU, these grids), times |x1| + |x2| (< 10) per output: atol
// 0.05, still far below what a wrong frequency or pairing gives (~1).
TEST(LtxVideoRope, MatchesDiffusersFloat32Tables) {
  OpSpec spec = LtxSpec("float32 cos / sin", LtxRope{}, false, at::kFloat);
  spec.cases = kb::harness::MakeCases(Shapes(), {at::kBFloat16});
  spec.tolerance = kb::harness::Tolerance{0.05, 1.6e-2};
  kb::harness::ExpectOpPasses(spec);
}

// The table op given diffusers' float32 cos / sin, [b, s, heads * d].
TEST(LtxVideoRope, TableOpTakesDiffusersTables) {
  OpSpec spec;
  spec.test = "rope with diffusers' LTX-Video cos / sin";
  spec.op = kb::harness::ProjectOp("rope");
  spec.cases = Cases();
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    at::Tensor q = MakeLtxHeads(f, false);
    at::Tensor k = MakeLtxHeads(f, false);
    const auto [cos, sin] = LtxVideoCosSin(LtxRope{}, s[4] * s[5], s[0], s[1], s[2], s[3],
                                           q.options().dtype(at::kFloat));
    return Args{q, k, cos, sin, true, std::string("bshd")};
  };
  spec.reference = TableReference;
  kb::harness::ExpectOpPasses(spec);
}

// Tiny inputs (atol scaled to them) and a grid of 121 x 24 x 36 latents
// (104,544 tokens: more than 65,535).
TEST(LtxVideoRope, TinyInputsAndLongGrid) {
  OpSpec spec = LtxSpec("input classes", LtxRope{}, false);
  spec.cases = TinyCases({{1, 7, 8, 12, 32, 64}, {2, 4, 5, 7, 5, 20}});
  for (auto& c : kb::harness::MakeCases({{1, 121, 24, 36, 2, 64}}, {at::kBFloat16, at::kFloat}))
    spec.cases.push_back(c);
  kb::harness::ExpectOpPasses(spec);
}

TEST(LtxVideoRope, RejectsGridNotMatchingTokens) {
  OpSpec spec = LtxSpec("wrong grid", LtxRope{}, false);
  spec.cases =
      kb::harness::MakeCases({{1, 7, 8, 12, 4, 64}}, {at::kBFloat16}, {.expects_rejection = true});
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{MakeLtxHeads(f, false),
                MakeLtxHeads(f, false),
                s[1],
                s[2],
                s[3] + 1,
                CoordScale(LtxRope{}),
                10000.0,
                std::string("bshd")};
  };
  kb::harness::ExpectOpPasses(spec);
}

}  // namespace
