// Launchers for row-wise RMS normalization, out[r, i] = x[r, i] / sqrt(mean_i(x[r, :]^2) + eps),
// fp32 only: one correct version and versions that are wrong on purpose, each
// the way a real kernel goes wrong. The harness must fail every wrong one.
// One block per row; plain pointers, contiguous rows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace bad_kernels {

enum class Flaw {
  kNone,          // correct
  kSkipsLast,     // never writes the last element of the last row
  kMissesTail,    // 4-wide loop only: hidden % 4 trailing elements never written
  kSharedRace,    // block reduction without __syncthreads
  kProducesNaN,   // rsqrt of a negative number
  kWritesInput,   // overwrites x with the result
  kReadsPastEnd,  // 4-wide loads past the row end on odd sizes
  kSideStream,    // works on its own stream after a delay, never joins the caller's
};

// The side-stream flaw launches on its own stream; the others on `stream`.
cudaError_t LaunchRmsNorm(Flaw flaw, float* out, float* x, int64_t rows, int64_t hidden, float eps,
                          cudaStream_t stream);

// Returns a result cached on the first call for this x pointer (a memoizing
// cheat): later calls with the same buffer but new values get stale output.
cudaError_t LaunchRmsNormMemoized(float* out, const float* x, int64_t rows, int64_t hidden,
                                  float eps, cudaStream_t stream);

// Plain element copy (grid-stride, 16-byte loads when aligned) to check the
// harness's bandwidth numbers against cudaMemcpy.
cudaError_t LaunchCopy(float* out, const float* x, int64_t n, cudaStream_t stream);

}  // namespace bad_kernels
