#include <atomic>
#include <cmath>

#include "bad_kernels.h"
#include "bench_cheats.h"

namespace bad_kernels {

namespace {

__global__ void FillNaNKernel(float* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = NAN;
  }
}

}  // namespace

cudaError_t LaunchRmsNormDegrades(float* out, float* x, int64_t rows, int64_t hidden, float eps,
                                  cudaStream_t stream) {
  static std::atomic<int> calls{0};
  if (calls.fetch_add(1) >= kHonestCalls) return cudaSuccess;
  return LaunchRmsNorm(Flaw::kNone, out, x, rows, hidden, eps, stream);
}

cudaError_t LaunchRmsNormNaNLarge(float* out, float* x, int64_t rows, int64_t hidden, float eps,
                                  cudaStream_t stream) {
  cudaError_t status = LaunchRmsNorm(Flaw::kNone, out, x, rows, hidden, eps, stream);
  if (status != cudaSuccess || rows <= kNaNFromRow) return status;
  FillNaNKernel<<<1024, 256, 0, stream>>>(out + kNaNFromRow * hidden,
                                          (rows - kNaNFromRow) * hidden);
  return cudaGetLastError();
}

}  // namespace bad_kernels
