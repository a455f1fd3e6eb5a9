// Launcher for out = x * alpha + y. Plain C++ with CUDA runtime types only, so
// the torch binding can include it without CUDA device headers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace {{python_name}}_cuda {

using kernels_common::DType;

// out, x and y: `n` contiguous elements of `dtype`; out may alias x or y.
// Any alignment works (16-byte vectors where the pointers allow them).
// Returns cudaErrorInvalidValue for an unknown dtype or negative n, else the
// launch status. Launches nothing for n == 0.
cudaError_t LaunchScaleAdd(void* out, const void* x, const void* y, float alpha, int64_t n,
                           DType dtype, cudaStream_t stream);

}  // namespace {{python_name}}_cuda
