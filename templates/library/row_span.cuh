// The device side of row_span.h: a row split into a scalar head, a body of
// 16-byte vectors and a scalar tail, as the threads of the row hold it.
//
// Who holds what. The row's threads (`lanes` of them: a group of lanes or a
// block) own the body's vectors as they own an aligned row's (vectors lane,
// lane + lanes, ...; the body starts at element `head`). The at most 2V - 2
// edge elements (head, then tail) go one per lane counted from the row's
// last lane, because the last lanes hold the fewest body vectors when the
// body does not fill them all. Lanes >= 2V - 2 (every block, warps, 16-lane
// groups of 16-byte vectors) therefore hold at most one edge element, a
// smaller group ceil((2V - 2) / lanes) (kEdgeSlotsPerThread, EdgeOfSlot in
// row_span.h). An edge element costs its holder one float register and one
// scalar access, and joins the row's one reduction: no extra barrier,
// shuffle or shared memory.
//
// Contract (the caller's part): V * sizeof(T) is the alignment the split
// is for (16 bytes for the 16-byte paths); every tensor indexed with the
// span is split alike (RowsSplitAlike on the host) and SpanOf gets the
// first row's phase ChooseRowAccess found; body vectors are reached
// through BodyVector (vector k at row element head + k * V); anything else
// read at row positions (the weight) is read one element at a time, since
// its alignment changes from row to row. A row that is not this thread's to
// touch gets RowSpan{} (nothing).
#pragma once

#include <cstdint>

#include "row_span.h"
#include "vec.cuh"

namespace kernels_common {

// The span of row `row` of a tensor whose rows are `row_stride` elements
// apart: split at its phase (kSplit; first_phase from ChooseRowAccess),
// else the whole row as aligned vectors (the launcher checked that V
// divides it).
template <int V, bool kSplit>
__device__ __forceinline__ RowSpan SpanOf(int first_phase, int64_t row,
                                          int64_t row_stride, int hidden) {
  if constexpr (kSplit) {
    return SplitRow<V>(RowPhase<V>(first_phase, row, row_stride), hidden);
  } else {
    // hidden >= 0: an unsigned division is one shift.
    return {0, static_cast<int>(static_cast<unsigned>(hidden) / V), 0};
  }
}

// Where body vector idx of a row starts (element head + idx * V), to load
// or store. A split row counts whole vectors from a Vec pointer to the
// body's start: from an element pointer plus a runtime head, nvcc 13.0
// split each 16-byte store into 2- and 4-byte ones. An aligned row (head 0) keeps the element-pointer
// cast: indexing cost registers there (ptxas, bf16 warp per row with 4
// vectors per lane: 49 vs 48, one 256-thread block per SM fewer).
template <int V, bool kSplit, typename T>
__device__ __forceinline__ Vec<T, V>* BodyVector(T* row, const RowSpan& span,
                                                 int idx) {
  if constexpr (kSplit) {
    return reinterpret_cast<Vec<T, V>*>(row + span.head) + idx;
  } else {
    return reinterpret_cast<Vec<T, V>*>(row + static_cast<int64_t>(idx) * V);
  }
}
template <int V, bool kSplit, typename T>
__device__ __forceinline__ const Vec<T, V>* BodyVector(const T* row,
                                                       const RowSpan& span,
                                                       int idx) {
  return BodyVector<V, kSplit>(const_cast<T*>(row), span, idx);
}

// Loads in flight per thread in a loop over a row's body vectors (a
// kernel short of registers passes fewer to ForEachLoopVector).
constexpr int kLoopBatch = 4;

// f(idx, vector) for the body vectors [begin, end) of a row that thread
// `lane` of `lanes` visits in a loop (begin + lane, + lanes, ...), read
// kBatch at a time. A loop that consumes each load before issuing the
// next waits one memory latency per vector, and with a few iterations per
// thread that is the whole kernel (nvcc 13.0 does not unroll such a loop:
// softmax over 32 x 151936 bf16, 9 vectors per thread and pass, ran at 25%
// of copy bandwidth on the H200).
template <int V, bool kSplit, int kBatch = kLoopBatch, typename T, typename F>
__device__ __forceinline__ void ForEachLoopVector(const T* row,
                                                  const RowSpan& span,
                                                  int begin, int end, int lane,
                                                  int lanes, F&& f) {
  for (int base = begin + lane; base < end; base += kBatch * lanes) {
    Vec<T, V> v[kBatch] = {};
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int idx = base + b * lanes;
      if (idx < end) v[b] = *BodyVector<V, kSplit>(row, span, idx);
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int idx = base + b * lanes;
      if (idx < end) f(idx, v[b]);
    }
  }
}

// Values of the edge elements a thread holds, as floats (0 where none).
template <int kSlots>
struct EdgeValues {
  float v[kSlots > 0 ? kSlots : 1] = {};

  // sum + the squares held (sum itself without edge slots: aligned paths
  // compile as before).
  __device__ __forceinline__ float AddSquares(float sum) const {
#pragma unroll
    for (int m = 0; m < kSlots; ++m) sum += v[m] * v[m];
    return sum;
  }
};

// Calls f(slot, element) for each edge element lane `lane` of `lanes`
// holds (EdgeOfSlot, row_span.h). 0 <= lane < lanes: a lane counted past
// the row's threads (a cluster block's offset into its share) gets negative
// edges, which pass `e < edges()` and index before the row.
template <int V, int kSlots, typename F>
__device__ __forceinline__ void ForEachEdge(const RowSpan& span, int lane,
                                            int lanes, F&& f) {
#pragma unroll
  for (int m = 0; m < kSlots; ++m) {
    const int e = EdgeOfSlot(lane, lanes, m);
    if (e < span.edges()) f(m, EdgeElement<V>(span, e));
  }
}

// Reads the edge elements this thread holds.
template <int V, int kSlots, typename T>
__device__ __forceinline__ void LoadEdges(const T* row, const RowSpan& span,
                                          int lane, int lanes,
                                          EdgeValues<kSlots>& out) {
  ForEachEdge<V, kSlots>(span, lane, lanes,
                         [&](int m, int i) { out.v[m] = ToFloat(row[i]); });
}

}  // namespace kernels_common
