// Building blocks of an RMSNorm row held in registers, shared by rms_norm,
// fused_add_rms_norm and head_rms_norm so the arithmetic is written once.
//
// A row of `hidden` elements is `nv` vectors of V elements. The threads of a
// row (kGroup lanes, or the whole block) own vectors first, first + step, ...;
// each thread keeps at most kVecs of them in registers, so x is read once.
#pragma once

#include <cstdint>

#include "launch.cuh"
#include "reduce.cuh"
#include "vec.cuh"

namespace kernels_common {

// Which row this thread works on and which vectors of it it owns. Threads of
// a partial last group stay alive (valid == false) for the shuffles.
struct RowSlot {
  int64_t row;
  int first;
  int step;
  bool valid;
};

template <int kGroup>
__device__ __forceinline__ RowSlot CurrentRowSlot(int64_t rows) {
  if constexpr (kGroup == kWholeBlock) {
    return {static_cast<int64_t>(blockIdx.x), static_cast<int>(threadIdx.x),
            static_cast<int>(blockDim.x), true};
  } else {
    const int64_t row =
        (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kGroup;
    return {row, static_cast<int>(threadIdx.x % kGroup), kGroup, row < rows};
  }
}

// Sum of squares of the vectors this thread holds; `limit` is nv for a valid
// row and 0 otherwise, so unloaded registers never count.
template <typename T, int V, int kVecs>
__device__ __forceinline__ float SumSquares(const Vec<T, V> (&r)[kVecs],
                                            const RowSlot& s, int limit) {
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (s.first + k * s.step < limit) {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const float f = r[k].Get(i);
        sum += f * f;
      }
    }
  }
  return sum;
}

// 1 / sqrt(mean(x^2) + eps) from the row's total sum of squares.
__device__ __forceinline__ float RmsScale(float sum_squares, float inv_hidden,
                                          float eps) {
  return rsqrtf(sum_squares * inv_hidden + eps);
}

// y[j] = r[j] * scale * w[j] for the vectors this thread holds.
template <typename T, typename W, int V, int kVecs>
__device__ __forceinline__ void StoreNormalized(T* y_row,
                                                const Vec<T, V> (&r)[kVecs],
                                                const W* w, float scale,
                                                const RowSlot& s, int limit) {
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = s.first + k * s.step;
    if (idx < limit) {
      float wf[V];
      LoadWeights<W, V>(w, static_cast<int64_t>(idx) * V, wf);
      Vec<T, V> out;
#pragma unroll
      for (int i = 0; i < V; ++i) out.Set(i, r[k].Get(i) * scale * wf[i]);
      out.Store(y_row + static_cast<int64_t>(idx) * V);
    }
  }
}

// Launch shape for long rows (rms_norm, fused_add_rms_norm), from the number
// of vectors per row. Register-resident paths cover nv <= 4096 (32768 bf16 /
// fp16 elements, 16384 fp32 elements at full width) with <= 512 threads, so
// ptxas has 128 registers per thread and never spills; longer rows loop and
// re-read x from L2 in the second pass.
enum class RowPath { kWarpPerRow, kBlockVecs2, kBlockVecs8, kBlockLoop };

struct RowPlan {
  RowPath path;
  int threads;
  int64_t blocks;
};

constexpr int kWarpPathVecs = 4;  // warp per row: nv <= 128
constexpr int kMaxBlockThreads = 512;
constexpr int kLoopBlockThreads = 512;

inline RowPlan PlanLongRows(int64_t rows, int64_t nv, int sm_count) {
  if (nv <= kWarpSize * kWarpPathVecs) {
    const int warps = WarpsPerBlockForRows(rows, 1, sm_count);
    return {RowPath::kWarpPerRow, warps * kWarpSize, CeilDiv(rows, warps)};
  }
  if (nv <= 2 * 512) {
    return {RowPath::kBlockVecs2, RoundUpToWarp(CeilDiv(nv, 2)), rows};
  }
  if (nv <= 8 * kMaxBlockThreads) {
    return {RowPath::kBlockVecs8, RoundUpToWarp(CeilDiv(nv, 8)), rows};
  }
  return {RowPath::kBlockLoop, kLoopBlockThreads, rows};
}

}  // namespace kernels_common
