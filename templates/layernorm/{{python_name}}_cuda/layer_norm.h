// Launcher for y = (x - mean) * rsqrt(var + eps) * w + b over rows of
// `hidden` elements. Plain C++: included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {
// x and y: `rows` rows of `hidden` contiguous elements, rows x_row_stride /
// y_row_stride elements apart. weight and bias: `hidden` contiguous elements
// each, both of param_dtype (x's dtype or float32), or nullptr for none.
// Returns cudaErrorInvalidValue for unsupported dtypes or sizes, else the
// launch status.
cudaError_t LaunchLayerNorm(void* y, const void* x, const void* weight, const void* bias,
                            kernels_common::DType x_dtype, kernels_common::DType param_dtype,
                            int64_t rows, int64_t hidden, int64_t x_row_stride,
                            int64_t y_row_stride, float eps, cudaStream_t stream);

}  // namespace {{python_name}}_cuda
