// Launcher for per-head RMSNorm over short rows (QK-norm): rows of head_dim
// elements, y = x * rsqrt(mean(x^2) + eps) * w. Plain C++: included by the
// torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {

// Longest row this launcher handles; longer rows belong to rms_norm.
constexpr int64_t kMaxHeadDim = 256;

// x and y: `rows` rows (tokens * heads) of head_dim contiguous elements,
// x_row_stride / y_row_stride elements apart. weight: head_dim contiguous
// elements of weight_dtype (x's dtype or float32), or nullptr.
// Returns cudaErrorInvalidValue for unsupported dtypes or head_dim outside
// 1..kMaxHeadDim, else the launch status.
cudaError_t LaunchHeadRmsNorm(void* y, const void* x, const void* weight,
                              kernels_common::DType x_dtype,
                              kernels_common::DType weight_dtype, int64_t rows,
                              int64_t head_dim, int64_t x_row_stride,
                              int64_t y_row_stride, float eps,
                              cudaStream_t stream);

}  // namespace {{python_name}}_cuda
