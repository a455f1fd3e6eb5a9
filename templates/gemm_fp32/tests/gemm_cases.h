// What the GEMM tests and benchmarks share: the case shape [M, N, K], the
// float64 reference and the tolerance, which grows with K.
//
// Tolerance: atol = kTolFactor * K * 2^-24 * magnitude^2 and rtol =
// kTolFactor * K * 2^-24, checked as |got - want| <= atol + rtol * |want|.
// A K-term fp32 dot product carries a rounding error of about
// sqrt(K) * 2^-24 * sum|a||b| on average and at most K * 2^-24 * sum|a||b|
// (one FMA chain; the kernel's per-chunk partials lower both, gemm_plan.h).
// With randn inputs the output is ~sqrt(K) * magnitude^2 while sum|a||b| is
// ~0.64 * K * magnitude^2, so an allclose bound linear in K covers the
// average case about kTolFactor / 0.64 times over at |want| ~ 0, more where
// |want| is larger; atol scales with magnitude^2 (the size of one product),
// so tiny and large inputs are judged alike. Dropping one product (error
// ~|a||b| ~ 0.6 magnitude^2 in every output) or one K-tile of 8 exceeds it
// for K up to well past 8192: GemmTolerance.CatchesADroppedTermOrTile checks
// exactly that.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kbuild/harness/case.h"

inline constexpr double kTolFactor = 8.0;

inline kb::harness::Tolerance GemmTolerance(int64_t k, double magnitude) {
  const double rtol = kTolFactor * static_cast<double>(k > 1 ? k : 1) * std::ldexp(1.0, -24);
  return {rtol * magnitude * magnitude, rtol};
}

// Every case gets the tolerance of its K (shape[2]) and magnitude, and is
// huge (one trial, a memory check) only when one of its tensors has 2^31
// elements or more: MakeCases reads [M, N, K] as one tensor of M * N * K
// elements, which marked 4096x1024x8192 huge and asked 1.6 TB for it.
inline std::vector<kb::harness::Case> WithGemmTolerance(std::vector<kb::harness::Case> cases) {
  for (auto& c : cases) {
    c.tolerance = GemmTolerance(c.shape[2], c.magnitude);
    const int64_t m = c.shape[0], n = c.shape[1], k = c.shape[2];
    c.huge = std::max({m * k, k * n, m * n}) >= kb::harness::kHugeElements;
  }
  return cases;
}

// a @ b (+ bias on every row), in the arguments' dtype (float64 in tests).
inline at::Tensor GemmReference(const at::Tensor& a, const at::Tensor& b, const c10::IValue& bias) {
  at::Tensor c = at::mm(a, b);
  if (!bias.isNone()) c = c + bias.toTensor();
  return c;
}
