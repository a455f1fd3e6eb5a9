// Launcher for the fused fp32 C = gelu_tanh(A @ B (+ bias)). Plain C++: included by the
// torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace linear_gelu_cuda {

// a: [m, k] fp32, rows lda elements apart; b: [k, n] fp32, rows ldb apart
// (each row contiguous; lda or ldb may be 0 to broadcast one row); c: a new
// contiguous [m, n] fp32 buffer; bias: n contiguous fp32 values or nullptr.
// k may be 0 (c = gelu(bias), or zeros). Returns cudaErrorInvalidValue for a size
// past 2^31 - 1 or more tiles than one grid holds, else the launch status.
cudaError_t LaunchLinearGelu(float* c, const float* a, const float* b, const float* bias, int64_t m,
                       int64_t n, int64_t k, int64_t lda, int64_t ldb, cudaStream_t stream);

}  // namespace linear_gelu_cuda
