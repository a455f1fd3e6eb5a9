// A row's mean and 1 / sqrt(var + eps) (biased variance, as LayerNorm),
// without the cancellation of E[x^2] - E[x]^2: a row of mean 1e4 and std 1
// in fp32 keeps its variance.
//   RegisterRowStats  the row held in registers (the RowPlan's register
//                     paths): the sum reduced first, each thread's part
//                     taken relative to a pivot (the row's first element),
//                     then the squared deviations from that mean; two
//                     reductions over the held values, nothing re-read.
//                     Without the pivot, reducing partial sums near 1e7
//                     (1000 values near 1e4) put fp32 outputs off by up to
//                     7e-3 (H200); with it, by about the mean's rounding.
//   LoopRowStats      a row too long for registers (kBlockLoop): one pass
//                     over x merging Welford states, one per 16-byte vector
//                     (its V values' mean and squared deviations), so the
//                     division of a Welford update is paid once per vector.
//
// Who holds what, as held_row.cuh and row_span.cuh say: a thread of the
// row's `lanes` owns body vectors first, first + lanes, ... (kVecs of them
// in registers on the register paths) and the edge elements EdgeOfSlot
// gives it.
//
// Contract: every thread of the row calls these (they reduce across the
// row: reduce.cuh's barrier contract), including threads that hold nothing
// (span.body 0, no edges). RegisterRowStats passes two block reductions, so
// on the block paths it takes two scratch arrays of kWarpSize floats in
// shared memory; LoopRowStats is for whole blocks and takes kWarpSize
// Welford states. Every thread gets the row's statistics.
#pragma once

#include <cstdint>

#include "held_row.cuh"
#include "reduce.cuh"
#include "row_span.cuh"
#include "vec.cuh"

namespace kernels_common {

struct RowStats {
  float mean;
  float rstd;  // 1 / sqrt(var + eps)
};

// The pivot RegisterRowStats takes: the row's first element (0 for a
// thread without a row, or an empty row). Read after WaitForPreviousKernel,
// like every load, and just before RegisterRowStats: loaded with the row,
// its register pushed the bf16 block path of LayerNorm into spills.
template <typename T>
__device__ __forceinline__ float RowPivot(const T* x_row, bool valid, int64_t cols) {
  return valid && cols > 0 ? ToFloat(x_row[0]) : 0.f;
}

// Sum of f(element) over the body vectors this thread holds
// (held_row.cuh).
template <typename T, int V, int kVecs, typename F>
__device__ __forceinline__ float SumHeld(const Vec<T, V> (&r)[kVecs], int first, int lanes,
                                         const RowSpan& span, F f) {
  float sum = 0.f;
  ForEachHeldValue(r, span, first, lanes, [&](float v) { sum += f(v); });
  return sum;
}

// The same over the edge elements this thread holds (row_span.cuh).
template <int V, int kSlots, typename F>
__device__ __forceinline__ float SumEdges(const EdgeValues<kSlots>& edges, const RowSpan& span,
                                          int first, int lanes, F f) {
  float sum = 0.f;
  ForEachEdge<V, kSlots>(span, first, lanes, [&](int m, int) { sum += f(edges.v[m]); });
  return sum;
}

// The statistics of a row held in registers by kGroup lanes (kWholeBlock:
// the block; then both scratch arrays are used).
template <int kGroup, int V, int kSlots, typename T, int kVecs>
__device__ __forceinline__ RowStats RegisterRowStats(const Vec<T, V> (&r)[kVecs],
                                                     const EdgeValues<kSlots>& edges, int first,
                                                     int lanes, const RowSpan& span, float pivot,
                                                     float inv_hidden, float eps,
                                                     float* sum_scratch, float* deviation_scratch) {
  const auto value = [](float v) { return v; };
  const auto one = [](float) { return 1.f; };
  const float sum =
      SumHeld(r, first, lanes, span, value) + SumEdges<V>(edges, span, first, lanes, value);
  const float count =
      SumHeld(r, first, lanes, span, one) + SumEdges<V>(edges, span, first, lanes, one);
  // The thread's sum relative to the pivot is small, so the row's reduction
  // of it stays exact to fp32. The mean is rounded once (half an ulp: 5e-4
  // at 1e4); that rounding moves the variance by (5e-4)^2 only.
  const float mean = pivot + RowSum<kGroup>(fmaf(-count, pivot, sum), sum_scratch) * inv_hidden;
  const auto squared_deviation = [mean](float v) {
    const float d = v - mean;
    return d * d;
  };
  const float deviations = SumHeld(r, first, lanes, span, squared_deviation) +
                           SumEdges<V>(edges, span, first, lanes, squared_deviation);
  const float var = RowSum<kGroup>(deviations, deviation_scratch) * inv_hidden;
  return {mean, rsqrtf(var + eps)};
}

// One vector's Welford state: its V values, their mean and squared
// deviations from it.
template <typename T, int V>
__device__ __forceinline__ Welford VectorWelford(const Vec<T, V>& v) {
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < V; ++i) sum += v.Get(i);
  const float mean = sum * (1.f / V);
  float m2 = 0.f;
#pragma unroll
  for (int i = 0; i < V; ++i) {
    const float d = v.Get(i) - mean;
    m2 += d * d;
  }
  return {static_cast<float>(V), mean, m2};
}

// The statistics of row x_row read once by the block (the caller reads it
// again to store); the edge elements were loaded into `edges` already.
template <int V, bool kSplit, int kSlots, typename T>
__device__ __forceinline__ RowStats LoopRowStats(const T* x_row, const RowSpan& span,
                                                 const EdgeValues<kSlots>& edges, float inv_hidden,
                                                 float eps, Welford* scratch) {
  const int lane = threadIdx.x;
  const int lanes = blockDim.x;
  Welford acc = MergeWelford::Identity();
  ForEachEdge<V, kSlots>(span, lane, lanes, [&](int m, int) { acc = WelfordAdd(acc, edges.v[m]); });
  ForEachLoopVector<V, kSplit>(x_row, span, 0, span.body, lane, lanes, [&](int, const auto& v) {
    acc = MergeWelford{}(acc, VectorWelford(v));
  });
  const Welford row = BlockReduce(acc, MergeWelford{}, scratch);
  return {row.mean, rsqrtf(row.m2 * inv_hidden + eps)};
}

}  // namespace kernels_common
