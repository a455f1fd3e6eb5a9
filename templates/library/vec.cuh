// Vectors of N elements loaded and stored with one instruction: 16 bytes
// (LDG.E.128 / STG.E.128) when N * sizeof(T) == 16. Kernels reach a row's
// vectors through BodyVector (row_span.cuh), which says how nvcc keeps them
// single instructions. The caller guarantees the alignment (ChooseRowAccess
// in row_span.h); nothing here checks it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

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

// Knob, off unless a kernel's .cu defines it first (layer_norm.cu does): Get
// reads a bf16 element from its 32-bit word (Bf16PairElement).
// Bit-identical values; fewer instructions (ptxas, CUDA 13.0, sm_90a): the
// bf16 block path with 2 vectors a thread of layer_norm 568 -> 512, rms_norm
// 336 -> 304, softmax 408 -> 376, registers unchanged. H100, 2026-12-05
// (results/h100-2026-12-05 run E): layer_norm bf16 1.3% faster (geomean of
// 20 cases, up to 5.5%), softmax 0.5%; rms_norm 0.5% over two interleaved
// rounds but its split rows (4096x2047) 6% slower in both, so not the
// library's rule.
#ifndef VEC_BF16_WORD_UNPACK
#define VEC_BF16_WORD_UNPACK 0
#endif

// Element i of a pair of bf16 packed in one 32-bit word, as a float: a bf16
// is the top half of an fp32, so the high element is the word with its low
// half cleared (one LOP3) and the low one the word shifted up (one SHF or
// IMAD.U32); __bfloat162float moves the high half down first (PRMT, then
// the shift).
__device__ __forceinline__ float Bf16PairElement(uint32_t word, int i) {
  return __uint_as_float(i % 2 == 0 ? word << 16 : word & 0xffff0000u);
}

template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];

  __device__ __forceinline__ float Get(int i) const {
    if constexpr (VEC_BF16_WORD_UNPACK && std::is_same_v<T, __nv_bfloat16> && N % 2 == 0) {
      uint32_t word;
      memcpy(&word, &v[i - i % 2], sizeof(word));
      return Bf16PairElement(word, i);
    } else {
      return ToFloat(v[i]);
    }
  }
  __device__ __forceinline__ void Set(int i, float f) {
    v[i] = FromFloat<T>(f);
  }
};

// Read-once loads (LoadReadOnceIf, LoadReadOnce) with kEvictFirst ask L2 to
// evict the vector's line first (createpolicy L2::evict_first, as Triton's
// evict_first loads), so a kernel's output rather than its dead input stays
// in L2 for the next kernel; without it they are plain loads. Where that
// pays depends on the launch's bytes (launch.cuh's EvictReadsFirstPays).
// Knob, off by default: VEC_READ_ONCE_EVICT_FIRST=1 makes kEvictFirst the
// default, so every read-once load hints (2-3% slower on outputs past L2).
#ifndef VEC_READ_ONCE_EVICT_FIRST
#define VEC_READ_ONCE_EVICT_FIRST 0
#endif

// The L2 policy of LoadReadOnceIf and of CopyToShared's read-once copies
// (staged_load.cuh): its lines are evicted first.
__device__ __forceinline__ uint64_t ReadOncePolicy() {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// out = *p where `guard` holds, for a 16-byte vector that this kernel reads
// once (a row held in registers); out is left as it was elsewhere. With the
// knob the guard is the load's own predicate: ptxas does not predicate an
// asm statement behind a branch, and a branch around each load cost 8
// instructions a vector. Volatile keeps the load after WaitForPreviousKernel
// (overlap.cuh), whose wait the compiler cannot relate to an asm load.
template <bool kEvictFirst = VEC_READ_ONCE_EVICT_FIRST, typename T, int N>
__device__ __forceinline__ void LoadReadOnceIf(bool guard, const Vec<T, N>* p,
                                               Vec<T, N>& out) {
  if constexpr (kEvictFirst && sizeof(Vec<T, N>) == 16) {
    uint32_t w[4];
    memcpy(w, &out, sizeof(w));
    asm volatile(
        "{\n .reg .pred g;\n setp.ne.b32 g, %4, 0;\n"
        " @g ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%5], %6;\n}"
        : "+r"(w[0]), "+r"(w[1]), "+r"(w[2]), "+r"(w[3])
        : "r"(static_cast<int>(guard)), "l"(p), "l"(ReadOncePolicy()));
    memcpy(&out, w, sizeof(out));
  } else {
    if (guard) out = *p;
  }
}

// *p, a vector this kernel reads once: LoadReadOnceIf without the guard
// (an elementwise op's inputs).
template <bool kEvictFirst = VEC_READ_ONCE_EVICT_FIRST, typename T, int N>
__device__ __forceinline__ Vec<T, N> LoadReadOnce(const Vec<T, N>* p) {
  if constexpr (kEvictFirst && sizeof(Vec<T, N>) == 16) {
    uint32_t w[4];
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "l"(p), "l"(ReadOncePolicy()));
    Vec<T, N> out;
    memcpy(&out, w, sizeof(out));
    return out;
  } else {
    return *p;
  }
}

// Weight i as a float: 1 without a weight (nullptr).
template <typename W>
__device__ __forceinline__ float WeightAt(const W* w, int64_t i) {
  return w == nullptr ? 1.f : ToFloat(w[i]);
}

// Weight may be absent (nullptr) or of a wider type than x (fp32 weight with
// bf16 activations); this reads N weights as floats either way: one vector
// access (kVector: w + offset aligned to the vector), else N scalar ones.
template <typename W, int N, bool kVector = true>
__device__ __forceinline__ void LoadWeights(const W* w, int64_t offset,
                                            float (&out)[N]) {
  if constexpr (!kVector) {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = WeightAt(w, offset + i);
    return;
  } else {
    if (w == nullptr) {
#pragma unroll
      for (int i = 0; i < N; ++i) out[i] = 1.f;
      return;
    }
    // Aligned launches only (no runtime head): the element-pointer cast, as
    // BodyVector's aligned rows (indexing: 37 vs 32 registers, ptxas, fused
    // bf16 with an fp32 weight, a warp per row).
    const Vec<W, N> wv = *reinterpret_cast<const Vec<W, N>*>(w + offset);
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = wv.Get(i);
  }
}

}  // namespace kernels_common
