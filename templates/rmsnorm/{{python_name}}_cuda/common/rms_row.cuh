// Building blocks of an RMSNorm row held in registers, shared by rms_norm,
// fused_add_rms_norm and head_rms_norm so the arithmetic is written once.
//
// A row of `hidden` elements is a RowSpan (row_span.h): `body` vectors of V
// elements after `head` scalars, then `tail` scalars (an aligned row: no head
// or tail, hidden / V vectors). The threads of a row (kGroup lanes, or the
// whole block: the RowPlan's shape, row_plan.h) own body vectors first,
// first + step, ...; each thread keeps at most kVecs of them in registers,
// plus the edge elements row_span.cuh gives it, so x is read once.
#pragma once

#include <cstdint>

#include "reduce.cuh"
#include "row_plan.h"
#include "row_slot.cuh"
#include "row_span.cuh"
#include "vec.cuh"

namespace kernels_common {

// Sum of squares of the body vectors this thread holds (span.body is 0 for
// a row the thread does not work on), so unloaded registers never count.
template <typename T, int V, int kVecs>
__device__ __forceinline__ float SumSquares(const Vec<T, V> (&r)[kVecs],
                                            const RowSlot& s,
                                            const RowSpan& span) {
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (s.first + k * s.step < span.body) {
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

// y[j] = r[j] * scale * w[j] for the body vectors this thread holds. The
// weight of a split row's body (kSplit) is read a scalar at a time: its
// alignment changes from row to row.
template <bool kSplit, typename T, typename W, int V, int kVecs>
__device__ __forceinline__ void StoreNormalized(T* y_row,
                                                const Vec<T, V> (&r)[kVecs],
                                                const W* w, float scale,
                                                const RowSlot& s,
                                                const RowSpan& span) {
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = s.first + k * s.step;
    if (idx < span.body) {
      float wf[V];
      LoadWeights<W, V, !kSplit>(w, span.head + static_cast<int64_t>(idx) * V,
                                 wf);
      Vec<T, V> out;
#pragma unroll
      for (int i = 0; i < V; ++i) out.Set(i, r[k].Get(i) * scale * wf[i]);
      *BodyVector<V, kSplit>(y_row, span, idx) = out;
    }
  }
}

// The same for the edge elements this thread holds (row_span.cuh).
template <int V, int kSlots, typename T, typename W>
__device__ __forceinline__ void StoreNormalizedEdges(
    T* y_row, const EdgeValues<kSlots>& edges, const W* w, float scale,
    const RowSpan& span, int lane, int lanes) {
  ForEachEdge<V, kSlots>(span, lane, lanes, [&](int m, int i) {
    y_row[i] = FromFloat<T>(edges.v[m] * scale * WeightAt(w, i));
  });
}

}  // namespace kernels_common
