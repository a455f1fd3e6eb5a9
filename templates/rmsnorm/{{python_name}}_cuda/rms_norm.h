// Launcher for y = x * rsqrt(mean(x^2) + eps) * w over rows of `hidden`
// elements. Plain C++: included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {
// x and y: `rows` rows of `hidden` contiguous elements, rows x_row_stride /
// y_row_stride elements apart. weight: `hidden` contiguous elements of
// weight_dtype (x's dtype or float32), or nullptr for no weight.
// Returns cudaErrorInvalidValue for unsupported dtypes or sizes, else the
// launch status.
cudaError_t LaunchRmsNorm(void* y, const void* x, const void* weight,
                          kernels_common::DType x_dtype,
                          kernels_common::DType weight_dtype, int64_t rows,
                          int64_t hidden, int64_t x_row_stride,
                          int64_t y_row_stride, float eps, cudaStream_t stream);

}  // namespace {{python_name}}_cuda
