// Launcher for out = silu(gate) * up over rows of d elements. Plain C++:
// included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {
// out, gate and up: `rows` rows of d contiguous elements of `dtype`, rows
// out_stride / gate_stride / up_stride elements apart (the halves of one
// [..., 2d] tensor: gate and up 2d apart, up = gate + d or gate = up + d).
// Returns cudaErrorInvalidValue for an unsupported dtype or d > 2^30, else
// the launch status; launches nothing for rows or d of 0.
cudaError_t LaunchSiluMul(void* out, const void* gate, const void* up,
                          kernels_common::DType dtype, int64_t rows, int64_t d,
                          int64_t out_stride, int64_t gate_stride, int64_t up_stride,
                          cudaStream_t stream);

}  // namespace {{python_name}}_cuda
