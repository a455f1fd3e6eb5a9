// Launcher for the per-token cross-entropy forward: loss[r] =
// logsumexp(x[r, :]) - x[r, target[r]], 0 where target[r] == ignore_index.
// Plain C++: included by the torch binding.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/dtype.h"

namespace fused_ce_cuda {
// x: `rows` rows of `cols` contiguous logits of `dtype`, rows x_row_stride
// elements apart; target: `rows` contiguous int64 class indices; loss:
// `rows` contiguous float32 values. A target outside [0, cols) that is not
// ignore_index gives NaN (the kernel cannot raise; torch asserts). Returns
// cudaErrorInvalidValue for unsupported dtypes or sizes (cols > 2^30),
// cudaErrorInvalidConfiguration for a grid past 2^31 - 1 blocks, else the
// launch status.
cudaError_t LaunchCrossEntropy(float* loss, const void* x, const int64_t* target,
                               kernels_common::DType dtype, int64_t rows,
                               int64_t cols, int64_t x_row_stride,
                               int64_t ignore_index, cudaStream_t stream);

}  // namespace fused_ce_cuda
