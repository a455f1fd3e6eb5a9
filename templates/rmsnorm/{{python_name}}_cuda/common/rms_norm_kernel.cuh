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
#include <cstring>

#include "overlap.cuh"
#include "rms_row.cuh"
#include "row_span.cuh"

namespace kernels_common {
// How x's 16-byte vectors are loaded (an A/B knob, kbuild --define
// RMS_NORM_X_LOAD=N): 0 as nvcc emits `*p` (ld.global.nc), 1 ld.global (the
// coherent path), 2 ld.global.L1::evict_last (inductor's first read of x),
// 3 ld.global.nc.L2::256B (L2 fetches 256 bytes a miss).
#ifndef RMS_NORM_X_LOAD
#define RMS_NORM_X_LOAD 0
#endif
static_assert(RMS_NORM_X_LOAD >= 0 && RMS_NORM_X_LOAD <= 3, "RMS_NORM_X_LOAD: 0, 1, 2 or 3");

// out = *p where guard holds (out unchanged elsewhere), in the knob's form
// (1-3; narrower vectors as `*p`).
// The asm forms are volatile so they stay after WaitForPreviousKernel.
template <typename T, int N>
__device__ __forceinline__ void LoadXVectorIf(bool guard, const Vec<T, N>* p, Vec<T, N>& out) {
  if constexpr (sizeof(Vec<T, N>) == 16) {
    uint32_t v[4];
    memcpy(v, &out, sizeof(v));
#define RMS_NORM_X_LOAD_ASM(op)                                                        \
  asm volatile("{\n .reg .pred g;\n setp.ne.b32 g, %4, 0;\n @g " op                    \
               " {%0, %1, %2, %3}, [%5];\n}"                                            \
               : "+r"(v[0]), "+r"(v[1]), "+r"(v[2]), "+r"(v[3])                          \
               : "r"(static_cast<int>(guard)), "l"(p))
    if constexpr (RMS_NORM_X_LOAD == 1) {
      RMS_NORM_X_LOAD_ASM("ld.global.v4.u32");
    } else if constexpr (RMS_NORM_X_LOAD == 2) {
      RMS_NORM_X_LOAD_ASM("ld.global.L1::evict_last.v4.u32");
    } else {
      RMS_NORM_X_LOAD_ASM("ld.global.nc.L2::256B.v4.u32");
    }
#undef RMS_NORM_X_LOAD_ASM
    memcpy(&out, v, sizeof(out));
  } else {
    if (guard) out = *p;
  }
}

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
#if RMS_NORM_X_LOAD == 0  // kept apart: its SASS is the default's of before the knob
    if (idx < span.body) r[k] = *BodyVector<V, kSplit>(x_row, span, idx);
#else
    LoadXVectorIf(idx < span.body, BodyVector<V, kSplit>(x_row, span, idx), r[k]);
#endif
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
