// The arithmetic of a softmax row, y = exp(x - max) / sum(exp(x - max)), on
// the values a thread holds (their online (max, sum) state: MaxSumOf and
// AddValues, reduce.cuh). float32 throughout; exp(x - max) <= 1, so no
// magnitude overflows. -inf (a masked position) gives 0; a row that is -inf
// everywhere has max -inf and sum 0 and gives NaN, as torch.softmax does
// (exp(-inf - -inf) is NaN); +inf or NaN in a row makes the row NaN, as in
// torch.
#pragma once

#include <cmath>

#include "reduce.cuh"
#include "row_span.cuh"
#include "vec.cuh"

namespace kernels_common {

// The row's output for one input value, from the row's (max, 1 / sum).
__device__ __forceinline__ float SoftmaxOf(float v, float max, float inv_sum) {
  return FastExp(v - max) * inv_sum;  // reduce.cuh
}

template <typename T, int V>
__device__ __forceinline__ Vec<T, V> SoftmaxVector(const Vec<T, V>& x,
                                                   float max, float inv_sum) {
  Vec<T, V> out;
#pragma unroll
  for (int i = 0; i < V; ++i) out.Set(i, SoftmaxOf(x.Get(i), max, inv_sum));
  return out;
}

// The edge elements a thread holds (row_span.cuh), written.
template <int V, int kSlots, typename T>
__device__ __forceinline__ void StoreSoftmaxEdges(
    T* y_row, const EdgeValues<kSlots>& edges, float max, float inv_sum,
    const RowSpan& span, int lane, int lanes) {
  ForEachEdge<V, kSlots>(span, lane, lanes, [&](int m, int i) {
    y_row[i] = FromFloat<T>(SoftmaxOf(edges.v[m], max, inv_sum));
  });
}

}  // namespace kernels_common
