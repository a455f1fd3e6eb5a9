// Per-head RMSNorm for short rows: [tokens, heads, head_dim] seen as
// tokens * heads rows of head_dim (Qwen3 QK-norm; video transformers'
// [27030 * 24, 128]). y = x * rsqrt(mean(x^2) + eps) * w, w of [head_dim].
//
// Bytes moved (the floor): rows * head_dim * sizeof(T) read + the same
// written + head_dim * sizeof(W) for the weight (an L1 hit after the first
// row). Floor time = bytes / measured copy bandwidth (`kbuild doctor`
// measures it; `kbuild bench` reports each case as a % of it).
//
// Launch shape: the row plan of every norm op (PlanRows,
// common/row_plan.h), as rms_norm maps the same rows: a group of G lanes,
// one 16-byte vector per lane when aligned: head_dim 64 / 128 / 256 in bf16
// -> G = 8 / 16 / 32 (fp32: 16 / 32 / 32 with 2 vectors). Groups never span
// warps, the sum is a G-lane butterfly (no shared memory, no barrier), and
// a 256-thread block holds 256 / G groups (fewer warps per block when rows
// are few, so every SM works). With a weight and aligned rows of one vector
// a lane, a group normalizes HEAD_RMSNORM_ROWS (2) rows: both rows' loads
// in flight before the first reduction, the weight read once (copied into
// shared memory by cp.async before x's loads, HEAD_RMSNORM_STAGED_WEIGHT),
// half the blocks (HeadRmsNormRowsKernel, 32 registers in bf16). Otherwise
// a group per row (RmsNormRegisterKernel): odd head_dims split into a scalar head
// and tail around 16-byte vectors (common/row_span.h), as in rms_norm;
// views that start off a boundary where the output does not take narrower
// vectors: up to 128 per row a warp per row, beyond that a block per row.
// Launched overlapped (common/overlap.cuh), as rms_norm.
//
// measured (H200, 2026-12-04, torch 2.11.0+cu130, CUDA 13.0, kbuild bench): bf16
//   [27030*24, 128] 80.7 us (97.9% of copy); 1.00x torch.compile, 1.01x Liger geomean over
//   5 shapes (0.97-1.04x, 0.99-1.04x) (results/h200-2026-12-04/run-1608).

#include "common/launch.cuh"
#include "common/held_row.cuh"
#include "common/overlap.cuh"
#include "common/rms_norm_kernel.cuh"
#include "common/rms_row.cuh"
#include "common/staged_load.cuh"
#include "head_rms_norm.h"

namespace {{python_name}}_cuda {

using namespace kernels_common;

// Rows of head_dim <= kMaxHeadDim elements never need the two-pass path.
static_assert(kMaxHeadDim <= kMaxRegisterRowVecs,
              "head_dim must fit a register path of the row plan");

// Rows a group of lanes normalizes on aligned rows of one vector a lane
// (kbuild --define HEAD_RMSNORM_ROWS=1, 2 or 4; default 2): both rows loaded
// before the first reduction, the weight read once. On the H200 2 is up to
// 6% faster than 1 and level with 4, which holds 56 registers
// (docs/rmsnorm.md).
#ifndef HEAD_RMSNORM_ROWS
#define HEAD_RMSNORM_ROWS 2
#endif
static_assert(HEAD_RMSNORM_ROWS == 1 || HEAD_RMSNORM_ROWS == 2 || HEAD_RMSNORM_ROWS == 4,
              "HEAD_RMSNORM_ROWS must be 1, 2 or 4 (rows a group of lanes normalizes)");
constexpr int kRowsPerGroup = HEAD_RMSNORM_ROWS;

// PlanRows' short_row_vecs for the row-per-group kernel (kbuild --define
// HEAD_RMSNORM_SHORT_ROW_VECS=1 or 2; default 1): 2 gives half the lanes
// two vectors each. Level with 1 on the H200 beside two rows a group, and
// tested there (docs/rmsnorm.md), so a tune knob.
#ifndef HEAD_RMSNORM_SHORT_ROW_VECS
#define HEAD_RMSNORM_SHORT_ROW_VECS 1
#endif
static_assert(HEAD_RMSNORM_SHORT_ROW_VECS == 1 || HEAD_RMSNORM_SHORT_ROW_VECS == 2,
              "HEAD_RMSNORM_SHORT_ROW_VECS must be 1 or 2 (vectors a lane holds)");
constexpr int kShortRowVecs = HEAD_RMSNORM_SHORT_ROW_VECS;

// Where HeadRmsNormRowsKernel reads the weight (kbuild --define
// HEAD_RMSNORM_STAGED_WEIGHT=0 or 1; default 1). 0: at the store, into
// registers, one L1 / L2 round trip after the reduction. 1: copied into
// shared memory by cp.async before x's loads (common/staged_load.cuh; 16
// bytes a thread), read back at the store: its latency hides behind x's.
#ifndef HEAD_RMSNORM_STAGED_WEIGHT
#define HEAD_RMSNORM_STAGED_WEIGHT 1
#endif
static_assert(HEAD_RMSNORM_STAGED_WEIGHT == 0 || HEAD_RMSNORM_STAGED_WEIGHT == 1,
              "HEAD_RMSNORM_STAGED_WEIGHT must be 0 or 1 (weight at the store or staged)");
// Vectors cp.async cannot copy keep registers.
template <typename W, int V>
constexpr bool kStagesWeight = HEAD_RMSNORM_STAGED_WEIGHT == 1 && kCopiesToShared<W, V>;

namespace {

// Aligned rows of at most kGroup vectors (one a lane), with a weight: group
// g normalizes rows g * kRows ... g * kRows + kRows - 1. Launch with the row
// plan of CeilDiv(rows, kRows) rows.
template <typename T, typename W, int V, int kGroup, int kRows>
__global__ void __launch_bounds__(kMaxBlockThreads)
    HeadRmsNormRowsKernel(T* __restrict__ y, const T* __restrict__ x, const W* __restrict__ w,
                          int64_t rows, int vectors, int64_t x_stride, int64_t y_stride,
                          float inv_hidden, float eps) {
  const RowSlot g = CurrentRowSlot<kGroup>((rows + kRows - 1) / kRows);
  const bool lane_works = g.valid && g.first < vectors;
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();
  extern __shared__ __align__(16) unsigned char staged_weight[];  // a vector a thread
  if constexpr (kStagesWeight<W, V>) {
    if (lane_works) CopyToShared<W, V>(StageSlot<W, V>(staged_weight, 0), w + g.first * V);
    CommitCopies();
  }
  Vec<T, V> r[kRows] = {};  // zero-init: rows past the end add nothing
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const int64_t row = g.row * kRows + j;
    if (lane_works && row < rows) {
      r[j] = reinterpret_cast<const Vec<T, V>*>(x + row * x_stride)[g.first];
    }
  }
  float scale[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < V; ++i) sum += r[j].Get(i) * r[j].Get(i);
    scale[j] = sum;
  }
  KeepPacked(r);  // held_row.cuh: no floats of x kept across the sums
#pragma unroll
  for (int j = 0; j < kRows; ++j) scale[j] = RmsScale(GroupSum<kGroup>(scale[j]), inv_hidden, eps);
  if (!lane_works) return;
  // The weight packed, converted at each use: with 8 floats of it live, a
  // bf16 kernel of 2 rows took 39 registers, not 32 (ptxas, CUDA 13.0).
  Vec<W, V> wv[1];
  if constexpr (kStagesWeight<W, V>) {
    WaitForCopies();  // only this thread reads its slot: no barrier
    wv[0] = *StageSlot<W, V>(staged_weight, 0);
  } else {
    wv[0] = reinterpret_cast<const Vec<W, V>*>(w)[g.first];
  }
  KeepPacked(wv);
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const int64_t row = g.row * kRows + j;
    if (row < rows) {
      Vec<T, V> out;
#pragma unroll
      for (int i = 0; i < V; ++i) out.Set(i, r[j].Get(i) * scale[j] * ToFloat(wv[0].Get(i)));
      reinterpret_cast<Vec<T, V>*>(y + row * y_stride)[g.first] = out;
    }
  }
}

// Launches HeadRmsNormRowsKernel when there is a weight and the plan of
// CeilDiv(rows, kRows) rows gives aligned rows one vector a lane; returns
// false (nothing launched) otherwise.
bool LaunchRowsKernel(void* y, const void* x, const void* weight, DType x_dtype,
                      DType weight_dtype, int64_t rows, int64_t head_dim, int64_t x_row_stride,
                      int64_t y_row_stride, float eps, cudaStream_t stream, cudaError_t* status) {
  if constexpr (kRowsPerGroup == 1) {
    return false;
  } else {
    const int elem = DTypeSize(x_dtype);
    RowLaunch l;
    if (weight == nullptr ||
        PlanRowLaunch(CeilDiv(rows, int64_t{kRowsPerGroup}), head_dim, elem,
                      {VectorAccess{x, x_row_stride, elem}, VectorAccess{y, y_row_stride, elem}},
                      VectorAccess{weight, 0, DTypeSize(weight_dtype)}, &l) != cudaSuccess ||
        l.access.split || ShapeOf(l.plan.path).vecs != 1 ||
        ShapeOf(l.plan.path).group == kWholeBlock) {
      return false;
    }
    *status = DispatchRowOp(x_dtype, weight_dtype, l.access, [&](auto xt, auto wt, auto vc, auto) {
      using T = typename decltype(xt)::type;
      using W = typename decltype(wt)::type;
      constexpr int V = decltype(vc)::value;
      return LaunchForPath(
          l.plan.path,
          [&](auto vecs, auto group) {
            constexpr int kGroup = decltype(group)::value;
            if constexpr (decltype(vecs)::value != 1 || kGroup == kWholeBlock) {
              return cudaErrorInvalidValue;  // excluded above
            } else {
              const size_t staged = kStagesWeight<W, V> ? l.plan.threads * sizeof(Vec<W, V>) : 0;
              return LaunchOverlappedWithSmem(
                  HeadRmsNormRowsKernel<T, W, V, kGroup, kRowsPerGroup>,
                  dim3(static_cast<unsigned>(l.plan.blocks)), dim3(l.plan.threads), staged,
                  stream,
                  static_cast<T*>(y), static_cast<const T*>(x), static_cast<const W*>(weight),
                  rows, static_cast<int>(l.access.vectors), x_row_stride, y_row_stride,
                  l.inv_hidden, eps);
            }
          },
          [] { return cudaErrorInvalidValue; });
    });
    return true;
  }
}

}  // namespace

cudaError_t LaunchHeadRmsNorm(void* y, const void* x, const void* weight,
                              DType x_dtype, DType weight_dtype, int64_t rows,
                              int64_t head_dim, int64_t x_row_stride,
                              int64_t y_row_stride, float eps,
                              cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (rows < 0 || head_dim <= 0 || head_dim > kMaxHeadDim) {
    return cudaErrorInvalidValue;
  }
  if (weight == nullptr) weight_dtype = x_dtype;
  cudaError_t rows_status = cudaSuccess;
  if (LaunchRowsKernel(y, x, weight, x_dtype, weight_dtype, rows, head_dim, x_row_stride,
                       y_row_stride, eps, stream, &rows_status)) {
    return rows_status;
  }
  const int elem = DTypeSize(x_dtype);
  const VectorAccess x_access{x, x_row_stride, elem};
  const VectorAccess y_access{y, y_row_stride, elem};
  const VectorAccess w_access{weight, 0, DTypeSize(weight_dtype)};
  RowLaunch l;
  const cudaError_t planned =
      PlanRowLaunch(rows, head_dim, elem, {x_access, y_access}, w_access, &l,
                    kDefaultRowVecs, kMaxGroupWarps, kShortRowVecs);
  if (planned != cudaSuccess) return planned;

  return DispatchRowOp(
      x_dtype, weight_dtype, l.access,
      [&](auto xt, auto wt, auto vc, auto split) {
        using T = typename decltype(xt)::type;
        using W = typename decltype(wt)::type;
        constexpr int V = decltype(vc)::value;
        return LaunchForPath<kDefaultRowVecs, kShortRowVecs>(
            l.plan.path,
            [&](auto vecs, auto group) {
              return LaunchOverlapped(
                  RmsNormRegisterKernel<T, W, V, decltype(vecs)::value,
                                        decltype(group)::value,
                                        decltype(split)::value>,
                  dim3(static_cast<unsigned>(l.plan.blocks)),
                  dim3(l.plan.threads), stream, static_cast<T*>(y),
                  static_cast<const T*>(x), static_cast<const W*>(weight),
                  rows, static_cast<int>(head_dim), l.access.first_phase,
                  x_row_stride, y_row_stride, l.inv_hidden, eps);
            },
            // Unreachable (the static_assert above); no two-pass kernel here.
            [] { return cudaErrorInvalidValue; });
      });
}

}  // namespace {{python_name}}_cuda
