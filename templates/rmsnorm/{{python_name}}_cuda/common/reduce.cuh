// Sums across the threads that share one row: a group of kGroup lanes inside a
// warp (4-32 lanes per row) or the whole block (kGroup == kWholeBlock).
// Every lane of the warp must call these (full-mask shuffles), so kernels keep
// out-of-range rows alive with predicates instead of returning early.
#pragma once

#include "row_plan.h"  // kWarpSize, kWholeBlock: the group sizes plans use

namespace kernels_common {

// Butterfly sum over aligned groups of kGroup lanes; each lane gets its
// group's total.
template <int kGroup>
__device__ __forceinline__ float GroupSum(float v) {
  static_assert(
      kGroup >= 1 && kGroup <= kWarpSize && (kGroup & (kGroup - 1)) == 0,
      "kGroup must be a power of two <= 32");
#pragma unroll
  for (int offset = kGroup / 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}

// Block-wide sum, returned to every thread. blockDim.x must be a multiple of
// 32. One __syncthreads: each warp re-reduces the per-warp partials itself
// instead of waiting for warp 0 to broadcast. `scratch` holds 32 floats and
// must not be reused by the block until another barrier has passed.
__device__ __forceinline__ float BlockSum(float v, float* scratch) {
  v = GroupSum<kWarpSize>(v);
  const int warp = threadIdx.x / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / kWarpSize;
  v = lane < warps ? scratch[lane] : 0.f;
  return GroupSum<kWarpSize>(v);
}

// The one entry point kernels call: kGroup lanes per row, or kWholeBlock.
template <int kGroup>
__device__ __forceinline__ float RowSum(float v, float* scratch) {
  if constexpr (kGroup == kWholeBlock) {
    return BlockSum(v, scratch);
  } else {
    return GroupSum<kGroup>(v);
  }
}

}  // namespace kernels_common
