// rope, rope_positions, rope_ltx_video, qk_norm_rope and qk_norm_rope_to_cache timing on
// Qwen3-8B (32 q / 8 kv
// heads of 128: prefill of 2048 tokens, batch 1 and 4; decode of 64
// sequences) and LTX-Video (32 heads of 64, batch 2: 7 x 16 x 24 latents =
// 768 x 512 x 49 frames, 16 x 16 x 24 = 6144 tokens for 121 frames) shapes,
// bf16 and fp16, against the eager ATen forms of transformers' and diffusers'
// code; benchmarks/peers.py adds torch.compile, Liger, transformers and
// diffusers. Bytes = q and k read and written + cos / sin read (tables) or
// the positions (8 bytes a token); the LTX grid reads nothing more;
// qk_norm_rope adds its two weights; qk_norm_rope_to_cache moves the same
// bytes (k read, its rows written into the cache).
// Measured results (H200): the header of {{python_name}}_cuda/rope.cu.
#include <ATen/ATen.h>

#include "../tests/ltx_video_reference.h"
#include "../tests/rope_reference.h"
#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;
using kb::harness::Case;

double ElemBytes(const Case& c) { return c.dtype == at::kFloat ? 4.0 : 2.0; }

// [b, s, q heads, k heads, d]: q and k read and written.
double QkBytes(const Case& c) {
  const RopeDims r = DimsOf(c);
  return 2.0 * ElemBytes(c) * static_cast<double>(r.b * r.s * (r.hq + r.hk) * r.d);
}

std::vector<Case> QwenCases() {
  // Qwen3-8B: prefill [1 | 4, 2048], decode [64, 1]; and a 32k-token prefill.
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 2048, 32, 8, 128}, {4, 2048, 32, 8, 128}, {64, 1, 32, 8, 128}, {1, 32768, 32, 8, 128}};
  auto cases = kb::harness::MakeCases(shapes, {at::kBFloat16, at::kHalf});
  for (auto& c :
       kb::harness::MakeCases({{1, 3, 2, 1, 128}}, {at::kBFloat16}, {.correctness_only = true}))
    cases.push_back(c);
  return cases;
}

// The value check of every case, ours and the peers' (benchmarks/peers.py):
// transformers' eager code rounds to q's dtype after each product (bf16: up
// to ~0.02 off where x1 * cos and x2 * sin nearly cancel), and the peers
// that compute their own angles do so in float32 (positions up to 32k,
// LTX-Video's angles up to 2e4 rad: cos / sin off by up to ~4e-3). The
// dtype's default tolerance would call them incorrect and leave them
// untimed; 0.05 is still far below a wrong rotation (~1), and the tests
// hold ours to the defaults.
std::vector<Case> WithPeerTolerance(std::vector<Case> cases) {
  for (Case& c : cases) c.tolerance = kb::harness::Tolerance{0.05, 1.6e-2};
  return cases;
}

Args QkArgs(kb::harness::ArgFactory& f) {
  const RopeDims r = DimsOf(f.test_case());
  return {f.InPlace({r.b, r.s, r.hq, r.d}), f.InPlace({r.b, r.s, r.hk, r.d})};
}

// transformers' apply_rotary_pos_emb in q's dtype (cos / sin [b, s, d]
// unsqueezed at the heads), out of place.
std::vector<at::Tensor> TransformersEager(const at::Tensor& q, const at::Tensor& k,
                                          const at::Tensor& cos, const at::Tensor& sin) {
  const at::Tensor c = cos.unsqueeze(2);
  const at::Tensor s = sin.unsqueeze(2);
  return {q * c + RotatePairs(q, false) * s, k * c + RotatePairs(k, false) * s};
}

// cos / sin [b, s, d] of q's dtype, as transformers passes them.
kb::harness::BenchSpec TableBench() {
  kb::harness::BenchSpec spec;
  spec.name = "rope";
  spec.op = kb::harness::ProjectOp("rope");
  spec.cases = WithPeerTolerance(QwenCases());
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    Args a = QkArgs(f);
    a.insert(a.end(),
             {f.Param({r.b, r.s, r.d}), f.Param({r.b, r.s, r.d}), false, std::string("bshd")});
    return a;
  };
  spec.bytes = [](const Case& c) {
    const RopeDims r = DimsOf(c);
    return QkBytes(c) + 2.0 * ElemBytes(c) * static_cast<double>(r.b * r.s * r.d);
  };
  spec.reference = TableReference;
  spec.baselines = {{"eager (transformers)", [](const Args& a) {
                       return TransformersEager(a[0].toTensor(), a[1].toTensor(), a[2].toTensor(),
                                                a[3].toTensor());
                     }}};
  return spec;
}

// transformers' Qwen3RMSNorm in q's dtype: the weight times the normalized
// head rounded to q's dtype.
at::Tensor TransformersRmsNorm(const at::Tensor& x, const at::Tensor& w, double eps) {
  const at::Tensor f = x.to(at::kFloat);
  return w * (f * at::rsqrt(f.pow(2).mean(-1, true) + eps)).to(x.scalar_type());
}

// Qwen3's q_norm and k_norm, then apply_rotary_pos_emb, as transformers runs
// them (args as qk_norm_rope's: q, k, q_weight, k_weight, cos, sin, eps).
std::vector<at::Tensor> TransformersQkNormRope(const Args& a) {
  const double eps = a[6].toDouble();
  return TransformersEager(TransformersRmsNorm(a[0].toTensor(), a[2].toTensor(), eps),
                           TransformersRmsNorm(a[1].toTensor(), a[3].toTensor(), eps),
                           a[4].toTensor(), a[5].toTensor());
}

// qk_norm_rope's bytes (and qk_norm_rope_to_cache's): q and k read and
// written once, the [b, s, d] tables and both weights read.
double QkNormRopeBytes(const Case& c) {
  const RopeDims r = DimsOf(c);
  return QkBytes(c) + 2.0 * ElemBytes(c) * static_cast<double>(r.b * r.s * r.d + r.d);
}

// qk_norm_rope on Qwen3's attention: q_norm and k_norm (weights of q's dtype,
// eps 1e-6), then the [b, s, d] tables of q's dtype. Bytes: q and k read
// and written once, the tables and both weights read.
kb::harness::BenchSpec QkNormRopeBench() {
  kb::harness::BenchSpec spec;
  spec.name = "qk_norm_rope";
  spec.op = kb::harness::ProjectOp("qk_norm_rope");
  spec.cases = WithPeerTolerance(QwenCases());
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    Args a = QkArgs(f);
    a.insert(a.end(), {f.Param({r.d}), f.Param({r.d}), f.Param({r.b, r.s, r.d}),
                       f.Param({r.b, r.s, r.d}), 1e-6, false, std::string("bshd")});
    return a;
  };
  spec.bytes = QkNormRopeBytes;
  spec.reference = QkNormRopeReference;
  spec.baselines = {{"eager (transformers)", TransformersQkNormRope}};
  return spec;
}

// qk_norm_rope_to_cache on Qwen3's decode step: one token a sequence (batch
// 8 and 64) into a static cache of 2050 slots, at a length drawn below its
// end; tables [b, s, d] and weights of q's dtype. Bytes: qk_norm_rope's (k
// read once, its rows written to the cache instead of back into k).
kb::harness::BenchSpec QkNormRopeToCacheBench() {
  kb::harness::BenchSpec spec;
  spec.name = "qk_norm_rope_to_cache";
  spec.op = kb::harness::ProjectOp("qk_norm_rope_to_cache");
  // [b, s, q heads, k heads, d, cache slots].
  auto cases = kb::harness::MakeCases({{8, 1, 32, 8, 128, 2050}, {64, 1, 32, 8, 128, 2050}},
                                      {at::kBFloat16, at::kHalf});
  for (auto& c : kb::harness::MakeCases({{1, 3, 2, 1, 128, 8}}, {at::kBFloat16},
                                        {.correctness_only = true}))
    cases.push_back(c);
  spec.cases = WithPeerTolerance(cases);
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    const int64_t slots = f.test_case().shape[5];
    return Args{f.InPlace({r.b, r.s, r.hq, r.d}),
                f.Input({r.b, r.s, r.hk, r.d}),
                f.Param({r.d}),
                f.Param({r.d}),
                f.Param({r.b, r.s, r.d}),
                f.Param({r.b, r.s, r.d}),
                1e-6,
                false,
                std::string("bshd"),
                f.InPlace({r.b, r.hk, slots, r.d}),
                f.Indices({1}, 0, slots - r.s + 1)};
  };
  spec.bytes = QkNormRopeBytes;
  spec.reference = QkNormRopeToCacheReference;
  // transformers: Qwen3RMSNorm on each, apply_rotary_pos_emb, then
  // StaticLayer.update's index_copy_ of k into the cache.
  spec.baselines = {{"eager (transformers)", [](const Args& a) {
                       const std::vector<at::Tensor> qk = TransformersQkNormRope(a);
                       const at::Tensor length = a[10].toTensor();
                       at::Tensor cache = a[9].toTensor();  // in place, as transformers
                       cache.index_copy_(2, at::arange(qk[1].size(1), length.options()) + length,
                                         qk[1].transpose(1, 2));
                       return std::vector<at::Tensor>{qk[0], cache};
                     }}};
  return spec;
}

// Positions [b, s] (prefill: 0..s-1; decode: one position up to 32k per
// sequence), Qwen3's theta 1e6.
kb::harness::BenchSpec PositionsBench() {
  kb::harness::BenchSpec spec;
  spec.name = "rope_positions";
  spec.op = kb::harness::ProjectOp("rope_positions");
  spec.cases = WithPeerTolerance(QwenCases());
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const RopeDims r = DimsOf(f.test_case());
    Args a = QkArgs(f);
    const auto longs = a[0].toTensor().options().dtype(at::kLong);
    const at::Tensor positions = r.s == 1 ? at::randint(0, 32768, {r.b, r.s}, longs)
                                          : at::arange(r.s, longs).expand({r.b, r.s}).contiguous();
    a.insert(a.end(), {positions, 1e6, false, std::string("bshd")});
    return a;
  };
  spec.bytes = [](const Case& c) {
    const RopeDims r = DimsOf(c);
    return QkBytes(c) + 8.0 * static_cast<double>(r.b * r.s);
  };
  spec.reference = PositionsReference;
  // Qwen3RotaryEmbedding.forward (float32 inv_freq and angles, cos / sin in
  // q's dtype), then apply_rotary_pos_emb.
  spec.baselines = {{"eager (transformers)", [](const Args& a) {
                       const at::Tensor q = a[0].toTensor();
                       const int64_t d = q.size(-1);
                       const auto floats = q.options().dtype(at::kFloat);
                       const at::Tensor inv_freq =
                           1.0 / at::pow(a[3].toDouble(), at::arange(0, d, 2, floats) / d);
                       const at::Tensor freqs =
                           a[2].toTensor().to(at::kFloat).unsqueeze(-1) * inv_freq;
                       const at::Tensor emb = at::cat({freqs, freqs}, -1);
                       return TransformersEager(q, a[1].toTensor(), emb.cos().to(q.scalar_type()),
                                                emb.sin().to(q.scalar_type()));
                     }}};
  return spec;
}

// [b, frames, height, width, heads, d].
double LtxQkBytes(const Case& c) {
  const auto& s = c.shape;
  return 2.0 * 2.0 * ElemBytes(c) * static_cast<double>(s[0] * s[1] * s[2] * s[3] * s[4] * s[5]);
}

std::vector<Case> LtxCases() {
  auto cases = kb::harness::MakeCases(
      {{2, 7, 16, 24, 32, 64}, {2, 16, 16, 24, 32, 64}, {1, 16, 16, 24, 32, 64}},
      {at::kBFloat16, at::kHalf});
  for (auto& c :
       kb::harness::MakeCases({{1, 2, 2, 3, 32, 64}}, {at::kBFloat16}, {.correctness_only = true}))
    cases.push_back(c);
  return cases;
}

Args LtxQk(kb::harness::ArgFactory& f) {
  const auto& s = f.test_case().shape;
  const int64_t tokens = s[1] * s[2] * s[3];
  return {f.InPlace({s[0], tokens, s[4], s[5]}), f.InPlace({s[0], tokens, s[4], s[5]})};
}

// diffusers' LTX-Video attention: cos / sin computed in float32, then
// apply_rotary_emb on q and k [B, S, C] (float32 math, cast back).
std::vector<at::Tensor> DiffusersEager(const Args& a, bool compute_tables) {
  const at::Tensor q = a[0].toTensor();
  at::Tensor cos, sin;
  if (compute_tables) {
    std::tie(cos, sin) = LtxVideoCosSin(LtxRope{}, q.size(2) * q.size(3), q.size(0), a[2].toInt(),
                                        a[3].toInt(), a[4].toInt(), q.options().dtype(at::kFloat));
  } else {
    cos = a[2].toTensor();
    sin = a[3].toTensor();
  }
  std::vector<at::Tensor> out;
  for (int i = 0; i < 2; ++i) {
    const at::Tensor x = a[i].toTensor().flatten(2);
    out.push_back(ApplyRotaryEmb(x.to(at::kFloat), cos, sin).to(x.scalar_type()).view(q.sizes()));
  }
  return out;
}

kb::harness::BenchSpec LtxVideoBench() {
  kb::harness::BenchSpec spec;
  spec.name = "rope_ltx_video";
  spec.op = kb::harness::ProjectOp("rope_ltx_video");
  spec.cases = WithPeerTolerance(LtxCases());
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    Args a = LtxQk(f);
    a.insert(a.end(), {s[1], s[2], s[3], CoordScale(LtxRope{}), 10000.0, std::string("bshd")});
    return a;
  };
  spec.bytes = LtxQkBytes;
  spec.reference = [](const Args& a) {
    const at::Tensor q = a[0].toTensor();
    const auto [cos, sin] = LtxVideoCosSin(LtxRope{}, q.size(2) * q.size(3), q.size(0),
                                           a[2].toInt(), a[3].toInt(), a[4].toInt(), q.options());
    std::vector<at::Tensor> out;
    for (int i = 0; i < 2; ++i)
      out.push_back(ApplyRotaryEmb(a[i].toTensor().flatten(2), cos, sin).view(q.sizes()));
    return out;
  };
  spec.baselines = {{"eager (diffusers)", [](const Args& a) { return DiffusersEager(a, true); }}};
  return spec;
}

// The table op given diffusers' float32 cos / sin [b, s, heads * d].
kb::harness::BenchSpec LtxTableBench() {
  kb::harness::BenchSpec spec = LtxVideoBench();
  spec.name = "rope_ltx_tables";
  spec.op = kb::harness::ProjectOp("rope");
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    Args a = LtxQk(f);
    const auto [cos, sin] = LtxVideoCosSin(LtxRope{}, s[4] * s[5], s[0], s[1], s[2], s[3],
                                           a[0].toTensor().options().dtype(at::kFloat));
    a.insert(a.end(), {cos, sin, true, std::string("bshd")});
    return a;
  };
  spec.bytes = [](const Case& c) {  // + float32 cos and sin, one value per q element
    return LtxQkBytes(c) + 2.0 * 4.0 * LtxQkBytes(c) / (4.0 * ElemBytes(c));
  };
  spec.reference = TableReference;
  spec.baselines = {{"eager (diffusers)", [](const Args& a) { return DiffusersEager(a, false); }}};
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(TableBench());
  kb::harness::RegisterBenchmark(PositionsBench());
  kb::harness::RegisterBenchmark(LtxVideoBench());
  kb::harness::RegisterBenchmark(LtxTableBench());
  kb::harness::RegisterBenchmark(QkNormRopeBench());
  kb::harness::RegisterBenchmark(QkNormRopeToCacheBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
