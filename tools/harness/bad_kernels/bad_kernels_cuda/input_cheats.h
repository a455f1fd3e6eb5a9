// Kernels that are right on inputs of magnitude ~1 and small shapes, and
// wrong only on the input classes the harness has cases for (case.h):
// tiny values, more than 65,535 rows, more than 2^31 elements, large
// values. fp32, contiguous rows, one block per row.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace bad_kernels {

enum class InputFlaw {
  kIgnoresEps,   // rsqrt(mean(x^2)): caught by tiny inputs, where eps sets the scale
  kRowsOnGridY,  // rows on gridDim.y, capped at its 65,535 limit: later rows never written
  kInt32Index,   // element count in an int: negative past 2^31 elements, nothing written
};

// RMS normalization without a weight (rms_norm's schema), wrong as `flaw` says.
cudaError_t LaunchRmsNormInputFlaw(InputFlaw flaw, float* out, const float* x, int64_t rows,
                                   int64_t hidden, float eps, cudaStream_t stream);

// Row softmax, out[r, i] = exp(x[r, i] - max_r) / sum_j exp(x[r, j] - max_r).
// stable = false leaves out the max: exp overflows to Inf from x > 88.7, and
// Inf / Inf is NaN (kLargeMagnitude inputs).
cudaError_t LaunchSoftmax(bool stable, float* out, const float* x, int64_t rows, int64_t hidden,
                          cudaStream_t stream);

}  // namespace bad_kernels
