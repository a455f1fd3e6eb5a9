// RMSNorm launchers (rms_norm's contract, fp32) that pass every correctness
// test and are wrong only where a benchmark looks: after many calls, or on
// shapes larger than any test case. Only the benchmark's value check
// (before and after timing) can reject them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace bad_kernels {

// Correct for the first kHonestCalls calls in the process, then launches
// nothing: the output keeps whatever it held (stale or unwritten). A test's
// few trials pass; a benchmark's warm-up and timed launches go past it.
inline constexpr int kHonestCalls = 50;
cudaError_t LaunchRmsNormDegrades(float* out, float* x, int64_t rows, int64_t hidden, float eps,
                                  cudaStream_t stream);

// Correct up to kNaNFromRow rows; with more, rows from kNaNFromRow on are NaN
// (as an index that overflows on large grids would leave them).
inline constexpr int64_t kNaNFromRow = 100000;
cudaError_t LaunchRmsNormNaNLarge(float* out, float* x, int64_t rows, int64_t hidden, float eps,
                                  cudaStream_t stream);

}  // namespace bad_kernels
