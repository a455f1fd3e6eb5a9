// Row-wise RMS normalization in fp32, correct and deliberately wrong, plus a
// copy kernel. Bytes per RMSNorm call: rows * hidden * 4 read + the same
// written. Launch: one 256-thread block per row. Not tuned: these kernels
// exist to prove the harness catches each flaw (see tests/), not to be fast.
#include <cstdint>
#include <map>
#include <tuple>

#include "bad_kernels.h"
#include "block_reduce.cuh"

namespace bad_kernels {

namespace {

constexpr int kThreads = 256;

template <Flaw F>
__global__ void RmsNormKernel(float* out, float* x, int64_t rows, int64_t hidden, float eps) {
  __shared__ float partial[32];
  const int64_t row = blockIdx.x;
  float* xr = x + row * hidden;
  float* outr = out + row * hidden;

  float sum = 0.f;
  if constexpr (F == Flaw::kMissesTail || F == Flaw::kReadsPastEnd) {
    // 4 elements per step; the tail is dropped (kMissesTail) or over-read (kReadsPastEnd).
    const int64_t end = F == Flaw::kMissesTail ? hidden / 4 * 4 : hidden;
    for (int64_t i = threadIdx.x * 4; i < end; i += blockDim.x * 4) {
      for (int k = 0; k < 4; ++k) sum += xr[i + k] * xr[i + k];
    }
  } else {
    for (int64_t i = threadIdx.x; i < hidden; i += blockDim.x) sum += xr[i] * xr[i];
  }
  const float mean = BlockSum(sum, partial, F != Flaw::kSharedRace) / static_cast<float>(hidden);
  const float scale = F == Flaw::kProducesNaN ? rsqrtf(-mean - 1.f) : rsqrtf(mean + eps);

  int64_t limit = hidden;
  if (F == Flaw::kSkipsLast && row == rows - 1) limit = hidden - 1;
  if (F == Flaw::kMissesTail) limit = hidden / 4 * 4;
  for (int64_t i = threadIdx.x; i < limit; i += blockDim.x) {
    const float y = xr[i] * scale;
    outr[i] = y;
    if constexpr (F == Flaw::kWritesInput) xr[i] = y;
  }
}

// Busy-waits on the global timer so late work is late for certain.
__global__ void SpinKernel(uint64_t nanoseconds) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

template <Flaw F>
cudaError_t Launch(float* out, float* x, int64_t rows, int64_t hidden, float eps,
                   cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  RmsNormKernel<F><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(out, x, rows, hidden, eps);
  return cudaGetLastError();
}

cudaStream_t SideStream() {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  return side;
}

__global__ void CopyKernel(float* out, const float* x, int64_t n, bool vectorized) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t scalar_from = 0;
  if (vectorized) {
    for (int64_t v = i; v < n / 4; v += stride) {
      reinterpret_cast<float4*>(out)[v] = reinterpret_cast<const float4*>(x)[v];
    }
    scalar_from = n / 4 * 4;
  }
  for (int64_t s = scalar_from + i; s < n; s += stride) out[s] = x[s];
}

}  // namespace

cudaError_t LaunchRmsNorm(Flaw flaw, float* out, float* x, int64_t rows, int64_t hidden, float eps,
                          cudaStream_t stream) {
  switch (flaw) {
    case Flaw::kNone:
      return Launch<Flaw::kNone>(out, x, rows, hidden, eps, stream);
    case Flaw::kSkipsLast:
      return Launch<Flaw::kSkipsLast>(out, x, rows, hidden, eps, stream);
    case Flaw::kMissesTail:
      return Launch<Flaw::kMissesTail>(out, x, rows, hidden, eps, stream);
    case Flaw::kSharedRace:
      return Launch<Flaw::kSharedRace>(out, x, rows, hidden, eps, stream);
    case Flaw::kProducesNaN:
      return Launch<Flaw::kProducesNaN>(out, x, rows, hidden, eps, stream);
    case Flaw::kWritesInput:
      return Launch<Flaw::kWritesInput>(out, x, rows, hidden, eps, stream);
    case Flaw::kReadsPastEnd:
      return Launch<Flaw::kReadsPastEnd>(out, x, rows, hidden, eps, stream);
    case Flaw::kSideStream: {
      SpinKernel<<<1, 1, 0, SideStream()>>>(2'000'000);  // 2 ms
      return Launch<Flaw::kNone>(out, x, rows, hidden, eps, SideStream());
    }
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchRmsNormMemoized(float* out, const float* x, int64_t rows, int64_t hidden,
                                  float eps, cudaStream_t stream) {
  static std::map<std::tuple<const float*, int64_t, int64_t>, float*> cache;
  const size_t bytes = static_cast<size_t>(rows * hidden) * sizeof(float);
  auto key = std::make_tuple(x, rows, hidden);
  auto it = cache.find(key);
  if (it != cache.end())
    return cudaMemcpyAsync(out, it->second, bytes, cudaMemcpyDeviceToDevice, stream);
  cudaError_t status = Launch<Flaw::kNone>(out, const_cast<float*>(x), rows, hidden, eps, stream);
  float* saved = nullptr;
  if (status == cudaSuccess) status = cudaMalloc(&saved, bytes);
  if (status == cudaSuccess)
    status = cudaMemcpyAsync(saved, out, bytes, cudaMemcpyDeviceToDevice, stream);
  if (status == cudaSuccess) cache[key] = saved;
  return status;
}

cudaError_t LaunchCopy(float* out, const float* x, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const bool aligned =
      reinterpret_cast<uintptr_t>(out) % 16 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0;
  const int64_t blocks =
      std::min<int64_t>((n + kThreads - 1) / kThreads, static_cast<int64_t>(sms) * 8);
  CopyKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(out, x, n, aligned);
  return cudaGetLastError();
}

}  // namespace bad_kernels
