// The register-resident RMSNorm kernel of rms_norm and head_rms_norm, for
// every register path of the row plan (row_plan.h: 4-32 lanes or a block per
// row): each thread loads its kVecs vectors of V elements once (and, on a
// row split by row_span.cuh, kSplit, its head / tail elements), the row's
// threads sum squares, then each thread scales and stores what it holds.
// Launch it with LaunchOverlapped. kMinBlocks: the blocks of kMaxBlockThreads
// per SM its __launch_bounds__ promises; 0 promises none (the same PTX as a
// bound without the argument; 1 is not: ptxas then allocates differently).
#pragma once

#include <cstdint>

#include "overlap.cuh"
#include "rms_row.cuh"
#include "row_span.cuh"

namespace kernels_common {
// static: internal linkage, so two kernel libraries loaded in one process
// never resolve each other's kernel stubs (this header is for .cu files).
template <typename T, typename W, int V, int kVecs, int kGroup, bool kSplit,
          int kMinBlocks = 0>
static __global__ void __launch_bounds__(kMaxBlockThreads, kMinBlocks)
    RmsNormRegisterKernel(T* __restrict__ y, const T* __restrict__ x,
                          const W* __restrict__ w, int64_t rows, int hidden,
                          int first_phase, int64_t x_stride, int64_t y_stride,
                          float inv_hidden, float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kGroup, kSplit>;
  __shared__ float scratch[kWarpSize];
  const RowSlot s = CurrentRowSlot<kGroup>(rows);
  const T* x_row = x + s.row * x_stride;
  T* y_row = y + s.row * y_stride;
  const RowSpan span =
      s.valid ? SpanOf<V, kSplit>(first_phase, s.row, x_stride, hidden)
              : RowSpan{};
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();

  Vec<T, V> r[kVecs] = {};  // zero-init: lets ptxas keep all in registers
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = s.first + k * s.step;
    if (idx < span.body) r[k] = *BodyVector<V, kSplit>(x_row, span, idx);
  }
  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, span, s.first, s.step, edges);
  const float total =
      RowSum<kGroup>(edges.AddSquares(SumSquares(r, s, span)), scratch);
  const float scale = RmsScale(total, inv_hidden, eps);
  StoreNormalized<kSplit>(y_row, r, w, scale, s, span);
  StoreNormalizedEdges<V>(y_row, edges, w, scale, span, s.first, s.step);
}

}  // namespace kernels_common
