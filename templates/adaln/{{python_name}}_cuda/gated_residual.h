// Launcher for the gated residual of DiT blocks, out = x + gate * y,
// elementwise over rows of `hidden` elements. Plain C++: included by the
// torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"
#include "common/param_rows.h"

namespace {{python_name}}_cuda {

// x, y and out: `rows` rows of `hidden` contiguous elements of x_dtype, each
// with its own row stride; `tokens` consecutive rows form one sample. gate:
// parameter rows of gate_dtype (x's dtype or float32) per sample or per
// token (common/param_rows.h). Returns cudaErrorInvalidValue for unsupported
// dtypes or sizes, else the launch status.
cudaError_t LaunchGatedResidual(void* out, const void* x, const void* y,
                                kernels_common::ParamRows gate, kernels_common::DType x_dtype,
                                kernels_common::DType gate_dtype, int64_t rows, int64_t tokens,
                                int64_t hidden, int64_t x_row_stride, int64_t y_row_stride,
                                int64_t out_row_stride, cudaStream_t stream);

}  // namespace {{python_name}}_cuda
