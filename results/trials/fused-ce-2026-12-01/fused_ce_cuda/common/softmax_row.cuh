// The arithmetic of a softmax row, y = exp(x - max) / sum(exp(x - max)), on
// the values a thread holds, and the online (max, sum) state (MaxSum,
// reduce.cuh) they feed. float32 throughout; exp(x - max) <= 1, so no
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

// The (max, sum) of values seen all at once: the max first, then one exp
// per value. An empty or all -inf set is {-inf, 0}.
template <typename ForEachValue>
__device__ __forceinline__ MaxSum MaxSumOf(ForEachValue&& for_each) {
  float max = -INFINITY;
  for_each([&](float v) { max = fmaxf(max, v); });
  float sum = 0.f;
  if (max != -INFINITY) for_each([&](float v) { sum += __expf(v - max); });
  return {max, sum};
}

// The state after N more values (a vector read in a loop): the sum is
// rescaled once to the new max.
template <int N>
__device__ __forceinline__ MaxSum AddValues(MaxSum s, const float (&v)[N]) {
  float max = s.max;
#pragma unroll
  for (int i = 0; i < N; ++i) max = fmaxf(max, v[i]);
  if (max == -INFINITY) return s;  // nothing but -inf so far
  float sum = s.sum * __expf(s.max - max);
#pragma unroll
  for (int i = 0; i < N; ++i) sum += __expf(v[i] - max);
  return {max, sum};
}

// The row's output for one input value, from the row's (max, 1 / sum).
__device__ __forceinline__ float SoftmaxOf(float v, float max, float inv_sum) {
  return __expf(v - max) * inv_sum;
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
