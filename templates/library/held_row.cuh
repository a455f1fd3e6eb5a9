// The body vectors of a row that one thread holds in registers on the
// register paths of the row plan (row_plan.h), as row_span.cuh assigns
// them: the thread `first` of the row's `lanes` holds body vectors first,
// first + lanes, ... up to kVecs of them; a slot past the body holds
// nothing. Loading, visiting and storing them here keeps every register
// kernel's loops one call each.
//
// Contract: `span` is the row's span (RowSpan{} on a row the thread does
// not work on: then it holds nothing); row pointers and vectors are reached
// through BodyVector (row_span.cuh), so the caller's alignment contract is
// row_span.cuh's. A register array is zero-initialized by the caller
// (`Vec<T, V> r[kVecs] = {}`): ptxas then keeps all of it in registers.
#pragma once

#include <cstdint>

#include "row_span.cuh"
#include "vec.cuh"

namespace kernels_common {

// f(k, idx) for each slot k this thread holds, idx its body vector.
template <int kVecs, typename F>
__device__ __forceinline__ void ForEachHeldVector(const RowSpan& span,
                                                  int first, int lanes, F&& f) {
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = first + k * lanes;
    if (idx < span.body) f(k, idx);
  }
}

// Reads the body vectors this thread holds into r; kEvictFirst (for a row no
// thread reads again: x, not a weight every row shares): LoadReadOnceIf's
// evict-first loads (vec.cuh).
template <int V, bool kSplit, bool kEvictFirst = false, typename T, int kVecs>
__device__ __forceinline__ void LoadHeldVectors(const T* row,
                                                const RowSpan& span, int first,
                                                int lanes,
                                                Vec<T, V> (&r)[kVecs]) {
  if constexpr (kEvictFirst) {  // else: the plain loads' code
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int idx = first + k * lanes;  // ForEachHeldVector's slots
      LoadReadOnceIf<true>(idx < span.body, BodyVector<V, kSplit>(row, span, idx), r[k]);
    }
  } else {
    ForEachHeldVector<kVecs>(span, first, lanes, [&](int k, int idx) {
      r[k] = *BodyVector<V, kSplit>(row, span, idx);
    });
  }
}

// f(value) for every element, as a float, of the vectors this thread holds.
template <typename T, int V, int kVecs, typename F>
__device__ __forceinline__ void ForEachHeldValue(const Vec<T, V> (&r)[kVecs],
                                                 const RowSpan& span, int first,
                                                 int lanes, F&& f) {
  ForEachHeldVector<kVecs>(span, first, lanes, [&](int k, int) {
#pragma unroll
    for (int i = 0; i < V; ++i) f(r[k].Get(i));
  });
}

// Tells the compiler that the held vectors may have changed, so it converts
// them to float again where they are next read instead of keeping every
// converted value live until then. Call it between two uses of the values
// that a reduction separates (ptxas, CUDA 13.0: the bf16 softmax block path
// with 8 vectors per thread kept 64 floats across its reduction, 86
// registers, one 512-thread block per SM; 56 with this, two). No
// instruction is emitted. Vectors narrower than 4 bytes are left alone.
template <typename T, int V, int kVecs>
__device__ __forceinline__ void KeepPacked(Vec<T, V> (&r)[kVecs]) {
  if constexpr (sizeof(Vec<T, V>) % sizeof(uint32_t) == 0) {
    constexpr int kWords = sizeof(Vec<T, V>) / sizeof(uint32_t);
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      auto* words = reinterpret_cast<uint32_t*>(&r[k]);
#pragma unroll
      for (int w = 0; w < kWords; ++w) asm("" : "+r"(words[w]));
    }
  }
}

}  // namespace kernels_common
