// Building blocks of an RMSNorm row held in registers, shared by rms_norm,
// fused_add_rms_norm and head_rms_norm so the arithmetic is written once.
//
// A row of `hidden` elements is `nv` vectors of V elements. The threads of a
// row (kGroup lanes, or the whole block: the RowPlan's shape, row_plan.h) own
// vectors first, first + step, ...; each thread keeps at most kVecs of them
// in registers, so x is read once.
#pragma once

#include <cstdint>

#include "reduce.cuh"
#include "row_plan.h"
#include "vec.cuh"

namespace kernels_common {

// Which row this thread works on and which vectors of it it owns. Threads of
// a partial last group stay alive (valid == false) for the shuffles.
struct RowSlot {
  int64_t row;
  int first;
  int step;
  bool valid;
};

template <int kGroup>
__device__ __forceinline__ RowSlot CurrentRowSlot(int64_t rows) {
  if constexpr (kGroup == kWholeBlock) {
    return {static_cast<int64_t>(blockIdx.x), static_cast<int>(threadIdx.x),
            static_cast<int>(blockDim.x), true};
  } else {
    const int64_t row =
        (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kGroup;
    return {row, static_cast<int>(threadIdx.x % kGroup), kGroup, row < rows};
  }
}

// Sum of squares of the vectors this thread holds; `limit` is nv for a valid
// row and 0 otherwise, so unloaded registers never count.
template <typename T, int V, int kVecs>
__device__ __forceinline__ float SumSquares(const Vec<T, V> (&r)[kVecs],
                                            const RowSlot& s, int limit) {
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (s.first + k * s.step < limit) {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const float f = r[k].Get(i);
        sum += f * f;
      }
    }
  }
  return sum;
}

// 1 / sqrt(mean(x^2) + eps) from the row's total sum of squares.
__device__ __forceinline__ float RmsScale(float sum_squares, float inv_hidden,
                                          float eps) {
  return rsqrtf(sum_squares * inv_hidden + eps);
}

// y[j] = r[j] * scale * w[j] for the vectors this thread holds.
template <typename T, typename W, int V, int kVecs>
__device__ __forceinline__ void StoreNormalized(T* y_row,
                                                const Vec<T, V> (&r)[kVecs],
                                                const W* w, float scale,
                                                const RowSlot& s, int limit) {
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = s.first + k * s.step;
    if (idx < limit) {
      float wf[V];
      LoadWeights<W, V>(w, static_cast<int64_t>(idx) * V, wf);
      Vec<T, V> out;
#pragma unroll
      for (int i = 0; i < V; ++i) out.Set(i, r[k].Get(i) * scale * wf[i]);
      out.Store(y_row + static_cast<int64_t>(idx) * V);
    }
  }
}

}  // namespace kernels_common
