// Launcher for residual += x; x = residual * rsqrt(mean(residual^2) + eps) * w
// in place. Plain C++: included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {
// x and residual: `rows` rows of `hidden` contiguous elements of x_dtype,
// rows x_row_stride / residual_row_stride elements apart; both are
// overwritten. weight: `hidden` contiguous elements of weight_dtype (x's
// dtype or float32). The sum is rounded to x_dtype before it is normalized,
// exactly like `residual += x` followed by rms_norm(residual).
// Returns cudaErrorInvalidValue for unsupported dtypes or sizes, else the
// launch status.
cudaError_t LaunchFusedAddRmsNorm(void* x, void* residual, const void* weight,
                                  kernels_common::DType x_dtype,
                                  kernels_common::DType weight_dtype,
                                  int64_t rows, int64_t hidden,
                                  int64_t x_row_stride,
                                  int64_t residual_row_stride, float eps,
                                  cudaStream_t stream);

}  // namespace {{python_name}}_cuda
