// The float64 references of the DiT ops, shared by the tests and the
// benchmarks (which include this file as ../tests/references.h):
//   adaptive_norm   y = norm(x) * (1 + scale) + shift, norm "layer" (biased
//                   variance) or "rms"
//   gated_residual  out = x + gate * y
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

// [b, hidden] broadcasts as [b, 1, hidden].
inline at::Tensor Broadcastable(const at::Tensor& m) { return m.dim() == 2 ? m.unsqueeze(1) : m; }

inline std::vector<at::Tensor> AdaptiveNormReference(const at::Tensor& x, const at::Tensor& scale,
                                                     const at::Tensor& shift,
                                                     const std::string& norm, double eps) {
  at::Tensor n;
  if (norm == "layer") {
    const at::Tensor centered = x - x.mean(-1, true);
    n = centered * at::rsqrt(centered.pow(2).mean(-1, true) + eps);
  } else {
    n = x * at::rsqrt(x.pow(2).mean(-1, true) + eps);
  }
  return {n * (1 + Broadcastable(scale)) + Broadcastable(shift)};
}

inline std::vector<at::Tensor> GatedResidualReference(const at::Tensor& x, const at::Tensor& y,
                                                      const at::Tensor& gate) {
  return {x + Broadcastable(gate) * y};
}
