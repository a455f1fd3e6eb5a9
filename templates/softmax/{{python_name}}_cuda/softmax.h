// Launcher for y = softmax(x) over rows of `cols` elements. Plain C++:
// included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {
// x and y: `rows` rows of `cols` contiguous elements of `dtype`, rows
// x_row_stride / y_row_stride elements apart. Returns cudaErrorInvalidValue
// for unsupported dtypes or sizes, cudaErrorInvalidConfiguration for a grid
// past 2^31 - 1 blocks, else the launch status.
cudaError_t LaunchSoftmax(void* y, const void* x, kernels_common::DType dtype,
                          int64_t rows, int64_t cols, int64_t x_row_stride,
                          int64_t y_row_stride, cudaStream_t stream);

}  // namespace {{python_name}}_cuda
