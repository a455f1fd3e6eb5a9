// The row arithmetic of the adaptive norm: a row's statistics (mean and
// 1 / standard deviation for LayerNorm, 1 / RMS for RMSNorm) and the
// modulated store y = (x - mean) * rstd * (1 + scale) + shift.
//
// Rows are held as rms_row.cuh holds them (RowSlot: which vectors of which
// row a thread owns; a split row's edge elements in EdgeValues). Contract:
// every thread of the row calls RegisterRowStats / LoopRowStats (they reduce
// across the row: reduce.cuh's barrier contract), with `scratch` in shared
// memory; LayerNorm's register path takes two reductions (mean, then the
// squared deviations from it: no E[x^2] - E[x]^2 cancellation), hence two
// scratch arrays. Modulation rows are read with LoadWeights: whole vectors
// on aligned launches, a scalar at a time on split ones (row_span.cuh).
#pragma once

#include <cstdint>

#include "adaptive_norm.h"
#include "common/held_row.cuh"
#include "common/reduce.cuh"
#include "common/rms_row.cuh"
#include "common/row_span.cuh"
#include "common/vec.cuh"

namespace {{python_name}}_cuda {

using namespace kernels_common;

struct RowStats {
  float mean;  // 0 for RMSNorm
  float rstd;  // 1 / sqrt(var + eps), or 1 / sqrt(mean(x^2) + eps)
};

// Shared memory of one row's reductions.
struct RowScratch {
  float sum[kWarpSize];
  float deviations[kWarpSize];
};

__device__ __forceinline__ float Modulate(float x, const RowStats& st, float scale, float shift) {
  return fmaf((x - st.mean) * st.rstd, 1.f + scale, shift);
}

// Sum of f(element) over the body vectors this thread holds.
template <typename T, int V, int kVecs, typename F>
__device__ __forceinline__ float SumHeld(const Vec<T, V> (&r)[kVecs], const RowSlot& s,
                                         const RowSpan& span, F&& f) {
  float sum = 0.f;
  ForEachHeldValue(r, span, s.first, s.step, [&](float v) { sum += f(v); });
  return sum;
}

// The same over the edge elements this thread holds.
template <int V, int kSlots, typename F>
__device__ __forceinline__ float SumEdges(const EdgeValues<kSlots>& edges, const RowSpan& span,
                                          int lane, int lanes, F&& f) {
  float sum = 0.f;
  ForEachEdge<V, kSlots>(span, lane, lanes, [&](int m, int) { sum += f(edges.v[m]); });
  return sum;
}

// The statistics of a row held in registers by kGroup lanes (or the block).
template <NormKind kNorm, int kGroup, int V, int kSlots, typename T, int kVecs>
__device__ __forceinline__ RowStats RegisterRowStats(const Vec<T, V> (&r)[kVecs],
                                                     const EdgeValues<kSlots>& edges,
                                                     const RowSlot& s, const RowSpan& span,
                                                     float inv_hidden, float eps,
                                                     RowScratch& scratch) {
  if constexpr (kNorm == NormKind::kRms) {
    const float total = RowSum<kGroup>(edges.AddSquares(SumSquares(r, s, span)), scratch.sum);
    return {0.f, RmsScale(total, inv_hidden, eps)};
  } else {
    const auto value = [](float f) { return f; };
    const float sum = SumHeld(r, s, span, value) + SumEdges<V>(edges, span, s.first, s.step, value);
    const float mean = RowSum<kGroup>(sum, scratch.sum) * inv_hidden;
    const auto deviation = [mean](float f) { return (f - mean) * (f - mean); };
    const float dev =
        SumHeld(r, s, span, deviation) + SumEdges<V>(edges, span, s.first, s.step, deviation);
    const float var = RowSum<kGroup>(dev, scratch.deviations) * inv_hidden;
    return {mean, rsqrtf(var + eps)};
  }
}

// One vector's Welford state: V values, their mean and squared deviations.
template <typename T, int V>
__device__ __forceinline__ Welford VectorWelford(const Vec<T, V>& v) {
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < V; ++i) sum += v.Get(i);
  const float mean = sum * (1.f / V);
  float m2 = 0.f;
#pragma unroll
  for (int i = 0; i < V; ++i) m2 += (v.Get(i) - mean) * (v.Get(i) - mean);
  return {static_cast<float>(V), mean, m2};
}

// The statistics of a row too long for registers, read once here (the
// caller reads it again to store): RMSNorm sums squares, LayerNorm merges
// Welford states (one pass, no cancellation). The whole block calls it.
template <NormKind kNorm, int V, bool kSplit, int kSlots, typename T>
__device__ __forceinline__ RowStats LoopRowStats(const T* x_row, const RowSpan& span,
                                                 const EdgeValues<kSlots>& edges, int lane,
                                                 int lanes, float inv_hidden, float eps,
                                                 float* sum_scratch, Welford* welford_scratch) {
  if constexpr (kNorm == NormKind::kRms) {
    float sum = edges.AddSquares(0.f);
    for (int idx = lane; idx < span.body; idx += lanes) {
      const Vec<T, V> v = *BodyVector<V, kSplit>(x_row, span, idx);
#pragma unroll
      for (int i = 0; i < V; ++i) sum += v.Get(i) * v.Get(i);
    }
    return {0.f, RmsScale(BlockSum(sum, sum_scratch), inv_hidden, eps)};
  } else {
    Welford w = MergeWelford::Identity();
    ForEachEdge<V, kSlots>(span, lane, lanes, [&](int m, int) { w = WelfordAdd(w, edges.v[m]); });
    for (int idx = lane; idx < span.body; idx += lanes) {
      w = MergeWelford{}(w, VectorWelford(*BodyVector<V, kSplit>(x_row, span, idx)));
    }
    const Welford row = BlockReduce(w, MergeWelford{}, welford_scratch);
    return {row.mean, rsqrtf(row.m2 * inv_hidden + eps)};
  }
}

// y = Modulate(v) for one body vector idx of a row: the modulation rows are
// read as whole vectors unless the row is split (kSplit).
template <bool kSplit, typename T, typename W, int V>
__device__ __forceinline__ void StoreModulatedVector(T* y_row, const Vec<T, V>& v, int idx,
                                                     const RowStats& st, const W* scale_row,
                                                     const W* shift_row, const RowSpan& span) {
  const int64_t offset = span.head + static_cast<int64_t>(idx) * V;
  float scale[V];
  float shift[V];
  LoadWeights<W, V, !kSplit>(scale_row, offset, scale);
  LoadWeights<W, V, !kSplit>(shift_row, offset, shift);
  Vec<T, V> out;
#pragma unroll
  for (int i = 0; i < V; ++i) out.Set(i, Modulate(v.Get(i), st, scale[i], shift[i]));
  *BodyVector<V, kSplit>(y_row, span, idx) = out;
}

// The body vectors this thread holds, modulated and stored.
template <bool kSplit, typename T, typename W, int V, int kVecs>
__device__ __forceinline__ void StoreModulated(T* y_row, const Vec<T, V> (&r)[kVecs],
                                               const RowStats& st, const W* scale_row,
                                               const W* shift_row, const RowSlot& s,
                                               const RowSpan& span) {
  ForEachHeldVector<kVecs>(span, s.first, s.step, [&](int k, int idx) {
    StoreModulatedVector<kSplit>(y_row, r[k], idx, st, scale_row, shift_row, span);
  });
}

// The same for the edge elements this thread holds.
template <int V, int kSlots, typename T, typename W>
__device__ __forceinline__ void StoreModulatedEdges(T* y_row, const EdgeValues<kSlots>& edges,
                                                    const RowStats& st, const W* scale_row,
                                                    const W* shift_row, const RowSpan& span,
                                                    int lane, int lanes) {
  ForEachEdge<V, kSlots>(span, lane, lanes, [&](int m, int i) {
    y_row[i] = FromFloat<T>(Modulate(edges.v[m], st, ToFloat(scale_row[i]), ToFloat(shift_row[i])));
  });
}

}  // namespace {{python_name}}_cuda
