// RMSNorm and row softmax that pass magnitude-1 cases on small shapes and
// fail one input class each (input_cheats.h). Bytes per call: rows * hidden
// * 4 read + the same written. Launch: one 256-thread block per row. Not
// tuned: they exist to prove the harness's input classes catch each flaw.
#include <algorithm>
#include <cstdint>

#include "block_reduce.cuh"
#include "input_cheats.h"

namespace bad_kernels {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxGridY = 65535;

// `count` is rows * hidden as the launcher passes it: the 32-bit flaw
// truncates it to an int (as `int n = x.numel();` does).
template <InputFlaw F>
__global__ void RmsNormKernel(float* out, const float* x, int64_t hidden, int64_t count,
                              float eps) {
  __shared__ float partial[32];
  const int64_t row = F == InputFlaw::kRowsOnGridY ? blockIdx.y : blockIdx.x;
  const int64_t base = row * hidden;
  const float* xr = x + base;
  float* outr = out + base;
  float sum = 0.f;
  for (int64_t i = threadIdx.x; i < hidden && base + i < count; i += blockDim.x)
    sum += xr[i] * xr[i];
  const float mean = BlockSum(sum, partial) / static_cast<float>(hidden);
  const float scale = F == InputFlaw::kIgnoresEps ? rsqrtf(mean) : rsqrtf(mean + eps);
  for (int64_t i = threadIdx.x; i < hidden && base + i < count; i += blockDim.x)
    outr[i] = xr[i] * scale;
}

template <bool Stable>
__global__ void SoftmaxKernel(float* out, const float* x, int64_t hidden) {
  __shared__ float partial[32];
  const float* xr = x + static_cast<int64_t>(blockIdx.x) * hidden;
  float* outr = out + static_cast<int64_t>(blockIdx.x) * hidden;
  float row_max = 0.f;
  if constexpr (Stable) {
    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x) m = fmaxf(m, xr[i]);
    row_max = BlockMax(m, partial);
  }
  float sum = 0.f;
  for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x) sum += expf(xr[i] - row_max);
  const float inv_sum = 1.f / BlockSum(sum, partial);
  for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x)
    outr[i] = expf(xr[i] - row_max) * inv_sum;
}

template <InputFlaw F>
cudaError_t Launch(float* out, const float* x, int64_t rows, int64_t hidden, float eps,
                   cudaStream_t stream) {
  // The capped grid is the flaw: a launch of more than 65,535 rows on y would fail.
  const dim3 grid = F == InputFlaw::kRowsOnGridY
                        ? dim3(1, static_cast<unsigned>(std::min(rows, kMaxGridY)))
                        : dim3(static_cast<unsigned>(rows));
  // The 32-bit flaw: past 2^31 elements the count wraps negative, so the
  // bounds check passes no element and the output is never written.
  const int64_t count =
      F == InputFlaw::kInt32Index ? static_cast<int32_t>(rows * hidden) : rows * hidden;
  RmsNormKernel<F><<<grid, kThreads, 0, stream>>>(out, x, hidden, count, eps);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchRmsNormInputFlaw(InputFlaw flaw, float* out, const float* x, int64_t rows,
                                   int64_t hidden, float eps, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  switch (flaw) {
    case InputFlaw::kIgnoresEps:
      return Launch<InputFlaw::kIgnoresEps>(out, x, rows, hidden, eps, stream);
    case InputFlaw::kRowsOnGridY:
      return Launch<InputFlaw::kRowsOnGridY>(out, x, rows, hidden, eps, stream);
    case InputFlaw::kInt32Index:
      return Launch<InputFlaw::kInt32Index>(out, x, rows, hidden, eps, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchSoftmax(bool stable, float* out, const float* x, int64_t rows, int64_t hidden,
                          cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (stable) {
    SoftmaxKernel<true><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(out, x, hidden);
  } else {
    SoftmaxKernel<false><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(out, x, hidden);
  }
  return cudaGetLastError();
}

}  // namespace bad_kernels
