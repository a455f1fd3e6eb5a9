// Building blocks of an RMSNorm row held in registers, shared by rms_norm,
// fused_add_rms_norm and head_rms_norm so the arithmetic is written once.
//
// A row of `hidden` elements is `nv` vectors of V elements. The threads of a
// row (kGroup lanes, or the whole block) own vectors first, first + step, ...;
// each thread keeps at most kVecs of them in registers, so x is read once.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "launch.cuh"
#include "overlap.cuh"
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
enum class RowPath {
  kWarpPerRow,
  kBlockVecs1,
  kBlockVecs2,
  kBlockVecs8,
  kBlockLoop
};

struct RowPlan {
  RowPath path;
  int threads;
  int64_t blocks;
};

constexpr int kWarpPathVecs = 4;  // warp per row: nv <= 128
constexpr int kMaxBlockThreads = 512;
constexpr int kLoopBlockThreads = 512;

// sm_count and threads_per_sm describe the GPU (CachedSmCount,
// CachedThreadsPerSm).
inline RowPlan PlanLongRows(int64_t rows, int64_t nv, int sm_count,
                            int threads_per_sm) {
  if (nv <= kWarpSize * kWarpPathVecs) {
    const int warps = WarpsPerBlockForRows(rows, 1, sm_count);
    return {RowPath::kWarpPerRow, warps * kWarpSize, CeilDiv(rows, warps)};
  }
  // Few rows: if the GPU holds every thread at once even with one vector per
  // thread, twice the threads per row halves each thread's share of the
  // load -> reduce -> store chain, which is all a launch this small costs
  // (H200, 2026-11-30: 1x4096 bf16 1.64 vs 1.89 us per call in a CUDA graph,
  // 512x4096 6.4 vs 6.7 us flushed; from 1024x4096 up, two waves make it
  // slower, 9.3 vs 8.4 us).
  const int64_t one_vector_threads = RoundUpToWarp(nv);
  if (nv <= kMaxBlockThreads &&
      rows * one_vector_threads <= int64_t{sm_count} * threads_per_sm) {
    return {RowPath::kBlockVecs1, static_cast<int>(one_vector_threads), rows};
  }
  if (nv <= 2 * kMaxBlockThreads) {
    return {RowPath::kBlockVecs2, RoundUpToWarp(CeilDiv(nv, 2)), rows};
  }
  if (nv <= 8 * kMaxBlockThreads) {
    return {RowPath::kBlockVecs8, RoundUpToWarp(CeilDiv(nv, 8)), rows};
  }
  return {RowPath::kBlockLoop, kLoopBlockThreads, rows};
}

// Everything a long-row launcher decides before choosing kernels.
struct LongRowLaunch {
  int width;  // elements per vector access
  int nv;     // vectors per row
  RowPlan plan;
  float inv_hidden;  // 1 / hidden
};

// Sizes out of range give cudaErrorInvalidValue (the binding checks them
// first with readable messages).
inline cudaError_t PlanLongRowLaunch(
    int64_t rows, int64_t hidden, int elem_bytes,
    std::initializer_list<VectorAccess> tensors, LongRowLaunch* out) {
  if (rows <= 0 || hidden <= 0 || hidden > (int64_t{1} << 30)) {
    return cudaErrorInvalidValue;
  }
  out->width = PickVectorWidth(16 / elem_bytes, hidden, tensors);
  out->nv = static_cast<int>(hidden / out->width);
  out->plan =
      PlanLongRows(rows, out->nv, CachedSmCount(), CachedThreadsPerSm());
  out->inv_hidden = 1.f / static_cast<float>(hidden);
  if (out->plan.blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  return cudaSuccess;
}

// Calls f(TypeTag<T>, TypeTag<W>, integral_constant<int, V>) for the
// runtime dtypes and vector width.
template <typename F>
cudaError_t DispatchNorm(DType x, DType w, int width, F&& f) {
  return DispatchInputWeight(x, w, [&](auto xt, auto wt) {
    using T = typename decltype(xt)::type;
    return DispatchVectorWidth<T>(width,
                                  [&](auto vc) { return f(xt, wt, vc); });
  });
}

// Returns register_launch(integral_constant kVecs, integral_constant kGroup)
// for the register-resident paths or loop_launch() for the two-pass one: the
// launch status.
template <typename RegisterLaunch, typename LoopLaunch>
cudaError_t LaunchForPath(RowPath path, RegisterLaunch&& register_launch,
                          LoopLaunch&& loop_launch) {
  using std::integral_constant;
  switch (path) {
    case RowPath::kWarpPerRow:
      return register_launch(integral_constant<int, kWarpPathVecs>{},
                             integral_constant<int, kWarpSize>{});
    case RowPath::kBlockVecs1:
      return register_launch(integral_constant<int, 1>{},
                             integral_constant<int, kWholeBlock>{});
    case RowPath::kBlockVecs2:
      return register_launch(integral_constant<int, 2>{},
                             integral_constant<int, kWholeBlock>{});
    case RowPath::kBlockVecs8:
      return register_launch(integral_constant<int, 8>{},
                             integral_constant<int, kWholeBlock>{});
    case RowPath::kBlockLoop:
      return loop_launch();
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels_common
