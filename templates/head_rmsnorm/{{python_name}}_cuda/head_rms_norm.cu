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
// common/row_plan.h), so rms_norm gives the same mapping on the same rows: a
// group of G lanes per row, one 16-byte vector per lane when aligned:
// head_dim 64 / 128 / 256 in bf16 -> G = 8 / 16 / 32 (fp32: 16 / 32 / 32
// with 2 vectors). Groups never span warps, the sum is a G-lane butterfly
// (no shared memory, no barrier), and a 256-thread block holds 256 / G rows
// (fewer warps per block when rows are few, so every SM works). Odd
// head_dims are split into a scalar head and tail around 16-byte vectors
// (common/row_span.h), as in rms_norm; views that start off a boundary
// where the output does not take narrower vectors: up to 128 per row a warp
// per row, beyond that a block per row. Launched overlapped
// (common/overlap.cuh), as rms_norm.
//
// measured (H200, 2026-12-01, torch 2.11.0+cu130, CUDA 13.0, kbuild bench): bf16
//   [27030*24, 128] 85.3 us (92.5% of copy), 0.98x QuACK; 0.87-0.97x the best peer on the
//   other shapes (results/h200-2026-12-01-peers, docs/rmsnorm.md).

#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/rms_norm_kernel.cuh"
#include "common/rms_row.cuh"
#include "head_rms_norm.h"

namespace {{python_name}}_cuda {

using namespace kernels_common;

// Rows of head_dim <= kMaxHeadDim elements never need the two-pass path.
static_assert(kMaxHeadDim <= kMaxRegisterRowVecs,
              "head_dim must fit a register path of the row plan");

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
  const int elem = DTypeSize(x_dtype);
  const VectorAccess x_access{x, x_row_stride, elem};
  const VectorAccess y_access{y, y_row_stride, elem};
  const VectorAccess w_access{weight, 0, DTypeSize(weight_dtype)};
  RowLaunch l;
  const cudaError_t planned =
      PlanRowLaunch(rows, head_dim, elem, {x_access, y_access}, w_access, &l);
  if (planned != cudaSuccess) return planned;

  return DispatchRowOp(
      x_dtype, weight_dtype, l.access,
      [&](auto xt, auto wt, auto vc, auto split) {
        using T = typename decltype(xt)::type;
        using W = typename decltype(wt)::type;
        constexpr int V = decltype(vc)::value;
        return LaunchForPath(
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
