// Vectors of N elements loaded and stored with one instruction: 16 bytes
// (LDG.E.128 / STG.E.128) when N * sizeof(T) == 16. The caller guarantees the
// alignment (see PickVectorWidth in launch.cuh); nothing here checks it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace kernels_common {

__device__ __forceinline__ float ToFloat(float v) { return v; }
__device__ __forceinline__ float ToFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

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

template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];

  __device__ __forceinline__ void Load(const T* p) {
    *this = *reinterpret_cast<const Vec*>(p);
  }
  __device__ __forceinline__ void Store(T* p) const {
    *reinterpret_cast<Vec*>(p) = *this;
  }
  __device__ __forceinline__ float Get(int i) const { return ToFloat(v[i]); }
  __device__ __forceinline__ void Set(int i, float f) {
    v[i] = FromFloat<T>(f);
  }
};

// Weight may be absent (nullptr) or of a wider type than x (fp32 weight with
// bf16 activations); this reads N weights as floats either way.
template <typename W, int N>
__device__ __forceinline__ void LoadWeights(const W* w, int64_t offset,
                                            float (&out)[N]) {
  if (w == nullptr) {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = 1.f;
    return;
  }
  Vec<W, N> wv;
  wv.Load(w + offset);
#pragma unroll
  for (int i = 0; i < N; ++i) out[i] = wv.Get(i);
}

}  // namespace kernels_common
