// What the rope tests share: the case dimensions, q and k in either layout,
// and the float64 references (ATen, on the tensors the op was given).
// rotate(x) = (-x2, x1) for each pair (x1, x2): pairs (i, i + d/2) as
// transformers' rotate_half, or (2i, 2i + 1) as diffusers' apply_rotary_emb.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <utility>

#include "kbuild/harness/op_test.h"
#include "kbuild/harness/reference_case.h"

// A case's shape: [b, s, q heads, k heads, d] (their product is q's element
// count times k heads, which keeps the harness's huge-case estimate close).
struct RopeDims {
  int64_t b, s, hq, hk, d;
};

inline RopeDims DimsOf(const kb::harness::Case& c) {
  const auto& s = c.shape;
  return {s[0], s[1], s[2], s[3], s[4]};
}

inline const char* LayoutName(bool heads_first) { return heads_first ? "bhsd" : "bshd"; }

// q or k, rotated in place by the op: [b, s, h, d] or [b, h, s, d].
inline at::Tensor MakeHeads(kb::harness::ArgFactory& f, const RopeDims& r, int64_t heads,
                            bool heads_first) {
  return heads_first ? f.InPlace({r.b, heads, r.s, r.d}) : f.InPlace({r.b, r.s, heads, r.d});
}

// The [b, s, h, d] view of a tensor in either layout (its own inverse).
inline at::Tensor TokensFirst(const at::Tensor& x, bool heads_first) {
  return heads_first ? x.transpose(1, 2) : x;
}

inline at::Tensor RotatePairs(const at::Tensor& x, bool interleaved) {
  const int64_t d = x.size(-1);
  if (interleaved) {
    const at::Tensor x1 = x.slice(-1, 0, d, 2);
    const at::Tensor x2 = x.slice(-1, 1, d, 2);
    return at::stack({-x2, x1}, -1).flatten(-2);
  }
  return at::cat({-x.slice(-1, d / 2, d), x.slice(-1, 0, d / 2)}, -1);
}

// x [b, s, h, d] * cos + rotate(x) * sin, cos / sin [s, w] or [1 | b, s, w]
// with w = d (every head) or h * d (a table per head).
inline at::Tensor ApplyTables(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                              bool interleaved) {
  const int64_t h = x.size(2);
  const int64_t d = x.size(3);
  auto per_head = [&](at::Tensor t) {
    if (t.dim() == 2) t = t.unsqueeze(0);
    return t.size(-1) == d ? t.unsqueeze(2) : t.unflatten(-1, {h, d});
  };
  return x * per_head(cos) + RotatePairs(x, interleaved) * per_head(sin);
}

// The expected q and k of the table op (args: q, k, cos, sin, interleaved,
// layout), in the layout they were given.
inline std::vector<at::Tensor> TableReference(const kb::harness::Args& a) {
  const bool interleaved = a[4].toBool();
  const bool heads_first = a[5].toStringRef() == "bhsd";
  std::vector<at::Tensor> out;
  for (int i = 0; i < 2; ++i) {
    const at::Tensor x = TokensFirst(a[i].toTensor(), heads_first);
    out.push_back(
        TokensFirst(ApplyTables(x, a[2].toTensor(), a[3].toTensor(), interleaved), heads_first));
  }
  return out;
}

// transformers' default rope in float64: inv_freq = theta^(-2i / d),
// freqs = positions * inv_freq, cos / sin of cat(freqs, freqs) (half-split)
// or of each frequency twice in a row (interleaved). positions: [s] or
// [b, s] int64; returns [s, d] or [b, s, d].
inline std::pair<at::Tensor, at::Tensor> PositionTables(const at::Tensor& positions, int64_t d,
                                                        double theta, bool interleaved) {
  const auto doubles = positions.options().dtype(at::kDouble);
  const at::Tensor inv_freq = at::pow(theta, -at::arange(0, d, 2, doubles) / d);
  const at::Tensor freqs = positions.to(at::kDouble).unsqueeze(-1) * inv_freq;
  const at::Tensor emb = interleaved ? freqs.repeat_interleave(2, -1) : at::cat({freqs, freqs}, -1);
  return {emb.cos(), emb.sin()};
}

// The expected q and k of rope_positions (args: q, k, positions, theta,
// interleaved, layout).
inline std::vector<at::Tensor> PositionsReference(const kb::harness::Args& a) {
  const bool interleaved = a[4].toBool();
  const bool heads_first = a[5].toStringRef() == "bhsd";
  const at::Tensor q = a[0].toTensor();
  const auto [cos, sin] = PositionTables(a[2].toTensor(), q.size(-1), a[3].toDouble(), interleaved);
  std::vector<at::Tensor> out;
  for (int i = 0; i < 2; ++i) {
    const at::Tensor x = TokensFirst(a[i].toTensor(), heads_first);
    out.push_back(TokensFirst(ApplyTables(x, cos, sin, interleaved), heads_first));
  }
  return out;
}

// The dtype's default tolerance with atol scaled to the input magnitude:
// outputs scale with the input (rope is linear), so tiny inputs would pass
// any output under the default atol. fp16's floor: its subnormal spacing.
inline kb::harness::Tolerance ScaledTolerance(at::ScalarType dtype, double magnitude) {
  kb::harness::Tolerance t = kb::harness::DefaultTolerance(kb::harness::ToDType(dtype));
  t.atol *= magnitude;
  if (dtype == at::kHalf && t.atol < 1.2e-7) t.atol = 1.2e-7;
  return t;
}

// Tiny inputs (case.h's kTinyMagnitude) with the scaled tolerance.
inline std::vector<kb::harness::Case> TinyCases(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<kb::harness::Case> cases;
  for (at::ScalarType dtype : {at::kBFloat16, at::kHalf, at::kFloat}) {
    for (auto& c :
         kb::harness::MakeCases(shapes, {dtype}, {.magnitude = kb::harness::kTinyMagnitude})) {
      c.tolerance = ScaledTolerance(dtype, kb::harness::kTinyMagnitude);
      cases.push_back(c);
    }
  }
  return cases;
}

// The expected q and k of qk_norm_rope (args: q, k, q_weight, k_weight, cos,
// sin, eps, interleaved, layout): each head RMS-normalized, then rotated by
// the tables. Not rounded in between: the kernel keeps the normalized value
// in fp32, and rounding it here would move an element across a rounding
// boundary the kernel never sees (one ulp of the head, where x1 cos - x2 sin
// cancels: beyond the output's tolerance, seen on the H200).
inline std::vector<at::Tensor> QkNormRopeReference(const kb::harness::Args& a) {
  const bool interleaved = a[7].toBool();
  const bool heads_first = a[8].toStringRef() == "bhsd";
  const double eps = a[6].toDouble();
  std::vector<at::Tensor> out;
  for (int i = 0; i < 2; ++i) {
    const at::Tensor x = TokensFirst(a[i].toTensor(), heads_first);
    const at::Tensor normed = x * at::rsqrt(x.pow(2).mean(-1, true) + eps) * a[2 + i].toTensor();
    out.push_back(TokensFirst(
        ApplyTables(normed, a[4].toTensor(), a[5].toTensor(), interleaved), heads_first));
  }
  return out;
}

// The expected q and k_cache of qk_norm_rope_to_cache (args: those of
// qk_norm_rope, then k_cache [b, k heads, slots, d] and cache_length): k's
// rotated token s in slot cache_length + s, the other slots as they were,
// tokens past the last slot dropped.
inline std::vector<at::Tensor> QkNormRopeToCacheReference(const kb::harness::Args& a) {
  const std::vector<at::Tensor> in_place = QkNormRopeReference(a);
  const bool heads_first = a[8].toStringRef() == "bhsd";
  const at::Tensor k = TokensFirst(in_place[1], heads_first);  // [b, s, h, d]
  at::Tensor cache = a[9].toTensor().clone();
  const int64_t first = a[10].toTensor().item<int64_t>();
  for (int64_t s = 0; s < k.size(1) && first + s < cache.size(2); ++s) {
    cache.select(2, first + s).copy_(k.select(1, s));
  }
  return {in_place[0], cache};
}
