// out = x * alpha + y, elementwise, for float32, float16 and bfloat16.
//
// Math: computed in float32, rounded once to the output type.
// Bytes moved: 3 * n * sizeof(T) (read x and y, write out); no reuse, so the
//   kernel is memory-bound and its target is the measured copy bandwidth.
// Launch shape: 256 threads per block, grid-stride over 16-byte vectors
//   (8 x bf16/fp16 or 4 x fp32 per thread per step), at most 8 blocks per SM;
//   the last n % vector-width elements (or every element, when a pointer is
//   not 16-byte aligned) take a scalar grid-stride loop.
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -c scale_add.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "scale_add.h"

namespace {{python_name}}_cuda {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kMaxBlocksPerSm = 8;
constexpr int kVectorBytes = 16;

__device__ __forceinline__ float ToFloat(float v) { return v; }
__device__ __forceinline__ float ToFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T FromFloat(float v);
template <>
__device__ __forceinline__ float FromFloat<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half FromFloat<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <typename T>
__device__ __forceinline__ T ScaleAdd(T x, T y, float alpha) {
  return FromFloat<T>(fmaf(ToFloat(x), alpha, ToFloat(y)));
}

// 16 bytes of T, loaded and stored as one 128-bit access.
template <typename T>
union Vector {
  static constexpr int kSize = kVectorBytes / sizeof(T);
  uint4 raw;
  T elems[kSize];
};

// No __restrict__: out may alias x or y (each element is read before it is
// written, by the same thread).
// kVectorized: all three pointers are 16-byte aligned. Vectors first, then the
// scalar tail; without alignment every element goes through the scalar loop.
template <typename T, bool kVectorized>
__global__ void __launch_bounds__(kThreadsPerBlock)
    ScaleAddKernel(T* out, const T* x, const T* y, float alpha, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t scalar_begin = 0;
  if constexpr (kVectorized) {
    using Vec = Vector<T>;
    const int64_t vectors = n / Vec::kSize;
    const uint4* x_vec = reinterpret_cast<const uint4*>(x);
    const uint4* y_vec = reinterpret_cast<const uint4*>(y);
    uint4* out_vec = reinterpret_cast<uint4*>(out);
    for (int64_t i = thread; i < vectors; i += stride) {
      Vec a, b, c;
      a.raw = x_vec[i];
      b.raw = y_vec[i];
#pragma unroll
      for (int k = 0; k < Vec::kSize; ++k) c.elems[k] = ScaleAdd(a.elems[k], b.elems[k], alpha);
      out_vec[i] = c.raw;
    }
    scalar_begin = vectors * Vec::kSize;
  }
  for (int64_t i = scalar_begin + thread; i < n; i += stride) out[i] = ScaleAdd(x[i], y[i], alpha);
}

bool IsAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kVectorBytes == 0; }

template <typename T>
cudaError_t Launch(void* out, const void* x, const void* y, float alpha, int64_t n,
                   cudaStream_t stream) {
  int device = 0, sm_count = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
      e != cudaSuccess) {
    return e;
  }
  const bool vectorized = IsAligned(out) && IsAligned(x) && IsAligned(y);
  const int64_t per_thread = vectorized ? Vector<T>::kSize : 1;
  const int64_t work_items = (n + per_thread - 1) / per_thread;
  const int64_t wanted = (work_items + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const int blocks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(wanted, int64_t{sm_count} * kMaxBlocksPerSm)));
  auto* o = static_cast<T*>(out);
  auto* a = static_cast<const T*>(x);
  auto* b = static_cast<const T*>(y);
  if (vectorized) {
    ScaleAddKernel<T, true><<<blocks, kThreadsPerBlock, 0, stream>>>(o, a, b, alpha, n);
  } else {
    ScaleAddKernel<T, false><<<blocks, kThreadsPerBlock, 0, stream>>>(o, a, b, alpha, n);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchScaleAdd(void* out, const void* x, const void* y, float alpha, int64_t n,
                           DType dtype, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  switch (dtype) {
    case DType::kFloat32:
      return Launch<float>(out, x, y, alpha, n, stream);
    case DType::kFloat16:
      return Launch<__half>(out, x, y, alpha, n, stream);
    case DType::kBFloat16:
      return Launch<__nv_bfloat16>(out, x, y, alpha, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace {{python_name}}_cuda
