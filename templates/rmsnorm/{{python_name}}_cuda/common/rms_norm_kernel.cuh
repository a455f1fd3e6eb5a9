// The register-resident RMSNorm kernel of rms_norm and head_rms_norm, for
// every register path of the row plan (row_plan.h: 4-32 lanes or a block per
// row): each thread loads its kVecs vectors of V elements once, the row's
// threads sum squares, then each thread scales and stores what it holds.
// Launch it with LaunchOverlapped.
#pragma once

#include <cstdint>

#include "overlap.cuh"
#include "rms_row.cuh"

namespace kernels_common {
// static: internal linkage, so two kernel libraries loaded in one process
// never resolve each other's kernel stubs (this header is for .cu files).
template <typename T, typename W, int V, int kVecs, int kGroup>
static __global__ void __launch_bounds__(kMaxBlockThreads)
    RmsNormRegisterKernel(T* __restrict__ y, const T* __restrict__ x,
                          const W* __restrict__ w, int64_t rows, int nv,
                          int64_t x_stride, int64_t y_stride, float inv_hidden,
                          float eps) {
  __shared__ float scratch[kWarpSize];
  const RowSlot s = CurrentRowSlot<kGroup>(rows);
  const int limit = s.valid ? nv : 0;
  const T* x_row = x + s.row * x_stride;
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();

  Vec<T, V> r[kVecs] = {};  // zero-init: lets ptxas keep all in registers
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = s.first + k * s.step;
    if (idx < limit) r[k].Load(x_row + static_cast<int64_t>(idx) * V);
  }
  const float total = RowSum<kGroup>(SumSquares(r, s, limit), scratch);
  StoreNormalized(y + s.row * y_stride, r, w, RmsScale(total, inv_hidden, eps),
                  s, limit);
}

}  // namespace kernels_common
