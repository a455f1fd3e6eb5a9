// The row arithmetic of the adaptive norm: a row's statistics (mean and
// 1 / standard deviation for LayerNorm: common/row_stats.cuh; 1 / RMS for
// RMSNorm: common/rms_row.cuh) and the modulated store
// y = (x - mean) * rstd * (1 + scale) + shift.
//
// Rows are held as rms_row.cuh holds them (RowSlot: which vectors of which
// row a thread owns; a split row's edge elements in EdgeValues). Contract:
// every thread of the row calls NormRegisterStats / NormLoopStats (they
// reduce across the row: reduce.cuh's barrier contract), with `scratch` in
// shared memory; LayerNorm's register path takes two reductions (mean, then
// the squared deviations from it: no E[x^2] - E[x]^2 cancellation), hence
// two scratch arrays. Modulation rows are read with LoadWeights: whole vectors
// on aligned launches, a scalar at a time on split ones (row_span.cuh); or,
// per token on aligned launches, held with x's (LoadHeldModulation) or staged
// in the block's dynamic shared memory by cp.async (StageModulation, whose
// launch passes StagedModulationBytes).
#pragma once

#include <cstdint>

#include "adaptive_norm.h"
#include "common/held_row.cuh"
#include "common/reduce.cuh"
#include "common/rms_row.cuh"
#include "common/row_span.cuh"
#include "common/row_stats.cuh"
#include "common/staged_load.cuh"
#include "common/vec.cuh"

namespace {{python_name}}_cuda {

using namespace kernels_common;

// Shared memory of one row's reductions.
struct RowScratch {
  float sum[kWarpSize];
  float deviations[kWarpSize];
};

__device__ __forceinline__ float Modulate(float x, const RowStats& st, float scale, float shift) {
  return fmaf((x - st.mean) * st.rstd, 1.f + scale, shift);
}

// The statistics of a row held in registers by kGroup lanes (or the block).
template <NormKind kNorm, int kGroup, int V, int kSlots, typename T, int kVecs>
__device__ __forceinline__ RowStats NormRegisterStats(const Vec<T, V> (&r)[kVecs],
                                                      const EdgeValues<kSlots>& edges,
                                                      const RowSlot& s, const RowSpan& span,
                                                      float pivot, float inv_hidden, float eps,
                                                      RowScratch& scratch) {
  if constexpr (kNorm == NormKind::kRms) {
    const float total = RowSum<kGroup>(edges.AddSquares(SumSquares(r, s, span)), scratch.sum);
    return {0.f, RmsScale(total, inv_hidden, eps)};
  } else {
    return kernels_common::RegisterRowStats<kGroup, V>(r, edges, s.first, s.step, span, pivot,
                                                       inv_hidden, eps, scratch.sum,
                                                       scratch.deviations);
  }
}

// The statistics of a row too long for registers, read once here (the
// caller reads it again to store): RMSNorm sums squares, LayerNorm merges
// Welford states (one pass, no cancellation). The whole block calls it
// (lane: threadIdx.x of blockDim.x lanes).
template <NormKind kNorm, int V, bool kSplit, int kSlots, typename T>
__device__ __forceinline__ RowStats NormLoopStats(const T* x_row, const RowSpan& span,
                                                  const EdgeValues<kSlots>& edges, int lane,
                                                  int lanes, float inv_hidden, float eps,
                                                  float* sum_scratch, Welford* welford_scratch) {
  if constexpr (kNorm == NormKind::kRms) {
    float sum = edges.AddSquares(0.f);
    kernels_common::ForEachLoopVector<V, kSplit>(
        x_row, span, 0, span.body, lane, lanes, [&](int, const Vec<T, V>& v) {
#pragma unroll
          for (int i = 0; i < V; ++i) sum += v.Get(i) * v.Get(i);
        });
    return {0.f, RmsScale(BlockSum(sum, sum_scratch), inv_hidden, eps)};
  } else {
    return kernels_common::LoopRowStats<V, kSplit>(x_row, span, edges, inv_hidden, eps,
                                                   welford_scratch);
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

// The modulation of the body vectors a thread holds, read as whole vectors
// with x's (aligned launches only), before the row's reduction: its loads
// then wait out the same latency as x's instead of starting after the
// reduction (ADALN_EARLY_MODULATION 1, adaptive_norm.cu).
template <typename W, int V, int kVecs>
struct HeldModulation {
  Vec<W, V> scale[kVecs];
  Vec<W, V> shift[kVecs];
};

template <typename W, int V, int kVecs>
__device__ __forceinline__ void LoadHeldModulation(const W* scale_row, const W* shift_row,
                                                   const RowSlot& s, const RowSpan& span,
                                                   HeldModulation<W, V, kVecs>& m) {
  ForEachHeldVector<kVecs>(span, s.first, s.step, [&](int k, int idx) {
    const int64_t offset = static_cast<int64_t>(idx) * V;  // aligned: no head
    m.scale[k] = *reinterpret_cast<const Vec<W, V>*>(scale_row + offset);
    m.shift[k] = *reinterpret_cast<const Vec<W, V>*>(shift_row + offset);
  });
}

// The modulation of the body vectors a thread holds, copied into its own
// slots of the block's dynamic shared memory by cp.async (aligned launches
// only; ADALN_EARLY_MODULATION 2). Loads into registers issued beside x's
// were moved by ptxas past the row's sum of squares, which waits for x: the
// rows then arrived a DRAM round trip after x (common/staged_load.cuh).
// Slots: (scale or shift, k), each a vector per thread.
template <typename W, int V, int kVecs>
__device__ __forceinline__ Vec<W, V>* ModulationSlot(void* staged, int which, int k) {
  return StageSlot<W, V>(staged, which * kVecs + k);
}

// kEvictFirst: the copies' L2 lines go first (staged_load.cuh).
template <typename W, int V, int kVecs, bool kEvictFirst>
__device__ __forceinline__ void StageModulation(const W* scale_row, const W* shift_row,
                                                const RowSlot& s, const RowSpan& span,
                                                void* staged) {
  ForEachHeldVector<kVecs>(span, s.first, s.step, [&](int k, int idx) {
    const int64_t offset = static_cast<int64_t>(idx) * V;  // aligned: no head
    // Per-token rows (the only ones staged): each is read by one row.
    CopyToShared<W, V, kEvictFirst>(ModulationSlot<W, V, kVecs>(staged, 0, k),
                                    scale_row + offset);
    CopyToShared<W, V, kEvictFirst>(ModulationSlot<W, V, kVecs>(staged, 1, k),
                                    shift_row + offset);
  });
  CommitCopies();
}

// Waits for this thread's copies (only it reads its slots: no barrier).
template <typename W, int V, int kVecs>
__device__ __forceinline__ void ReadStagedModulation(void* staged, const RowSlot& s,
                                                     const RowSpan& span,
                                                     HeldModulation<W, V, kVecs>& m) {
  WaitForCopies();
  ForEachHeldVector<kVecs>(span, s.first, s.step, [&](int k, int) {
    m.scale[k] = *ModulationSlot<W, V, kVecs>(staged, 0, k);
    m.shift[k] = *ModulationSlot<W, V, kVecs>(staged, 1, k);
  });
}

// Dynamic shared memory StageModulation takes for a block.
template <typename W, int V>
constexpr size_t StagedModulationBytes(int vecs_per_thread, int threads) {
  return size_t{2} * vecs_per_thread * threads * sizeof(Vec<W, V>);
}

// StoreModulated with the modulation already held.
template <typename T, typename W, int V, int kVecs>
__device__ __forceinline__ void StoreHeldModulated(T* y_row, const Vec<T, V> (&r)[kVecs],
                                                   const HeldModulation<W, V, kVecs>& m,
                                                   const RowStats& st, const RowSlot& s,
                                                   const RowSpan& span) {
  ForEachHeldVector<kVecs>(span, s.first, s.step, [&](int k, int idx) {
    Vec<T, V> out;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      out.Set(i, Modulate(r[k].Get(i), st, m.scale[k].Get(i), m.shift[k].Get(i)));
    }
    *BodyVector<V, false>(y_row, span, idx) = out;
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
