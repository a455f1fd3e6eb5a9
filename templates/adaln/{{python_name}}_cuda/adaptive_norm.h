// Launcher for the adaptive norm of DiT blocks,
//   y = norm(x) * (1 + scale) + shift,
// norm a LayerNorm without affine parameters or an RMSNorm, over rows of
// `hidden` elements. Plain C++: included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"
#include "common/param_rows.h"

namespace {{python_name}}_cuda {

enum class NormKind {
  kLayer,  // (x - mean(x)) * rsqrt(var(x) + eps), var biased (over hidden)
  kRms,    // x * rsqrt(mean(x^2) + eps)
};

// x and y: `rows` rows of `hidden` contiguous elements, rows x_row_stride /
// y_row_stride elements apart; `tokens` consecutive rows form one sample.
// scale and shift: parameter rows of mod_dtype (x's dtype or float32) per
// sample or per token (common/param_rows.h). Returns cudaErrorInvalidValue
// for unsupported dtypes or sizes, else the launch status.
cudaError_t LaunchAdaptiveNorm(void* y, const void* x, kernels_common::ParamRows scale,
                               kernels_common::ParamRows shift, NormKind norm,
                               kernels_common::DType x_dtype, kernels_common::DType mod_dtype,
                               int64_t rows, int64_t tokens, int64_t hidden, int64_t x_row_stride,
                               int64_t y_row_stride, float eps, cudaStream_t stream);

}  // namespace {{python_name}}_cuda
