// GELU, tanh approximation, exactly as PyTorch's at::gelu(x, "tanh") computes
// it in fp32: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), with
// the accurate tanhf (the build uses no fast-math, so no tanh.approx).
#pragma once

#include <cuda_runtime.h>

namespace linear_gelu_cuda {

__device__ __forceinline__ float GeluTanh(float x) {
  constexpr float kBeta = 0.7978845608028654f;  // sqrt(2 / pi)
  constexpr float kKappa = 0.044715f;
  const float inner = kBeta * (x + kKappa * x * x * x);
  return 0.5f * x * (1.0f + tanhf(inner));
}

}  // namespace linear_gelu_cuda
