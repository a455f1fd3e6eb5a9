// What the linear_gelu tests and benchmarks share: the case shape [M, N, K],
// the float64 reference gelu_tanh(a @ b + bias) and the tolerance, which
// grows with K.
//
// The GELU tolerance (LinearGeluTolerance) is derived from the GEMM one
// below (GemmTolerance, kept as the template wrote it): the pre-activation
// z = a @ b + bias has error e <= atol + rtol |z|; gelu_tanh's slope is at
// most 1.13, and |z| <= 2 |gelu(z)| for z >= 0 (gelu(z) >= z / 2), while for
// z < 0 the term |gelu'(z)| rtol |z| is at most ~0.2 rtol (|z gelu'(z)| <=
// 0.2 there), so 2 atol + 4 rtol |gelu(z)| bounds the propagated error.
// The kernel's own gelu (tanhf, a few ulp; 1 + tanh cancels for z << 0, but
// there the result and its absolute error are below 1e-6 |z|) needs an
// absolute floor at small K: K is counted as at least 8. The tests check
// that this tolerance still rejects a dropped product, a dropped K-tile and
// the erf GELU in place of the tanh one.
//
// Tolerance: atol = kTolFactor * K * 2^-24 * magnitude^2 and rtol =
// kTolFactor * K * 2^-24, checked as |got - want| <= atol + rtol * |want|.
// It is built for the worst accumulation the kernels use, one FMA chain over
// K (the tiled kernel's default, GEMM_KCHUNK = 0; partials and the few-rows
// kernel's K split only shorten the chains). With randn inputs the running
// sum after i terms is ~sqrt(i) * magnitude^2 and each FMA rounds it by up to
// 2^-24 of that, uniformly and independently, so the chain's error has a
// standard deviation of 2^-24 * magnitude^2 * sqrt(sum_i i / 3) ~ 0.41 * K *
// 2^-24 * magnitude^2: the bound is ~20 standard deviations at |want| ~ 0,
// more where |want| is larger, and holds over millions of outputs. atol
// scales with magnitude^2 (the size of one product), so tiny and large inputs
// are judged alike. Dropping one product (error ~|a||b| ~ 0.6 magnitude^2 in
// every output) or one K-tile of 8 exceeds it for K up to well past 8192:
// GemmTolerance.CatchesADroppedTermOrTile checks exactly that.
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

// The tolerance of gelu_tanh(z) for z from a GEMM over k (header comment).
inline kb::harness::Tolerance LinearGeluTolerance(int64_t k, double magnitude) {
  const kb::harness::Tolerance z = GemmTolerance(k > 8 ? k : 8, magnitude);
  return {2.0 * z.atol, 4.0 * z.rtol};
}

// Every case gets the tolerance of its K (shape[2]) and magnitude, and is
// huge (one trial, a memory check) only when one of its tensors has 2^31
// elements or more: MakeCases reads [M, N, K] as one tensor of M * N * K
// elements, which marked 4096x1024x8192 huge and asked 1.6 TB for it. A huge
// case's memory need counts A, B and C (the harness's per-element estimate:
// fp32 op tensors plus float64 copies), not M * N * K elements (232 GB asked
// for 2 x 268435459 x 9 on the H200, which has 141).
inline std::vector<kb::harness::Case> WithLinearGeluTolerance(std::vector<kb::harness::Case> cases) {
  for (auto& c : cases) {
    c.tolerance = LinearGeluTolerance(c.shape[2], c.magnitude);
    const int64_t m = c.shape[0], n = c.shape[1], k = c.shape[2];
    c.huge = std::max({m * k, k * n, m * n}) >= kb::harness::kHugeElements;
    if (c.huge) c.device_bytes = (m * k + k * n + m * n) * (2 * int64_t{sizeof(float)} + 40);
  }
  return cases;
}

// gelu_tanh(a @ b (+ bias on every row)), in the arguments' dtype (float64
// in tests): the composite at::gelu(at::addmm(bias, a, b), "tanh").
inline at::Tensor LinearGeluReference(const at::Tensor& a, const at::Tensor& b,
                                      const c10::IValue& bias) {
  at::Tensor c = at::mm(a, b);
  if (!bias.isNone()) c = c + bias.toTensor();
  return at::gelu(c, "tanh");
}
