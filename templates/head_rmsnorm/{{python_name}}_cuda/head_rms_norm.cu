// Per-head RMSNorm for short rows: [tokens, heads, head_dim] seen as
// tokens * heads rows of head_dim (Qwen3 QK-norm; video transformers'
// [27030 * 24, 128]). y = x * rsqrt(mean(x^2) + eps) * w, w of [head_dim].
//
// Bytes moved (the floor): rows * head_dim * sizeof(T) read + the same
// written + head_dim * sizeof(W) for the weight (an L1 hit after the first
// row). Floor time = bytes / measured copy bandwidth (`kbuild doctor`
// measures it; `kbuild bench` reports each case as a % of it).
//
// Launch shape: a group of G lanes per row, one 16-byte vector per lane when
// aligned: head_dim 64 / 128 / 256 in bf16 -> G = 8 / 16 / 32 (fp32: 16 / 32
// / 32 with 2 vectors). Groups never span warps, the sum is a G-lane
// butterfly (no shared memory, no barrier), and a 256-thread block holds
// 256 / G rows (fewer warps per block when rows are few, so every SM works).
// One block per row would leave most threads idle at head_dim 128. Launched
// overlapped (common/overlap.cuh), as rms_norm.
//
// measured (H200, 2026-11-30, torch 2.11.0+cu130, CUDA 13.0; do_bench median, L2 flushed):
//   bf16 [27030*24, 128] 84.9 us = 3911 GB/s (92% of the 4250 GB/s copy), 4.7x F.rms_norm;
//   [4096*32, 128] 22.4 us (70%); [8192*16, 64] 14.4 us (55%), 5.9x F.rms_norm.

#include "common/rms_norm_kernel.cuh"
#include "common/rms_row.cuh"
#include "head_rms_norm.h"

namespace {

using namespace kernels_common;

// Lanes per row and vectors per lane, from vectors per row (nv <= 256).
struct HeadPlan {
  int group;
  int vecs;
};

HeadPlan PlanHeadRows(int nv) {
  if (nv <= 4) return {4, 1};
  if (nv <= 8) return {8, 1};
  if (nv <= 16) return {16, 1};
  if (nv <= 32) return {32, 1};
  if (nv <= 64) return {32, 2};
  return {32, 8};  // misaligned views: scalar accesses, nv up to 256
}

}  // namespace

namespace {{python_name}}_cuda {

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
  const int width =
      PickVectorWidth(16 / elem, head_dim, {x_access, y_access, w_access});
  const int nv = static_cast<int>(head_dim / width);
  const HeadPlan plan = PlanHeadRows(nv);
  const int rows_per_warp = kWarpSize / plan.group;
  const int warps = WarpsPerBlockForRows(rows, rows_per_warp, CachedSmCount());
  const int64_t blocks = CeilDiv(rows, int64_t{warps} * rows_per_warp);
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const float inv_hidden = 1.f / static_cast<float>(head_dim);

  return DispatchNorm(
      x_dtype, weight_dtype, width, [&](auto xt, auto wt, auto vc) {
        using T = typename decltype(xt)::type;
        using W = typename decltype(wt)::type;
        constexpr int V = decltype(vc)::value;
        auto launch = [&](auto kernel) {
          return LaunchOverlapped(kernel, dim3(static_cast<unsigned>(blocks)),
                                  dim3(warps * kWarpSize), stream,
                                  static_cast<T*>(y), static_cast<const T*>(x),
                                  static_cast<const W*>(weight), rows, nv,
                                  x_row_stride, y_row_stride, inv_hidden, eps);
        };
        switch (plan.group * 100 + plan.vecs) {
          case 401:
            return launch(RmsNormRegisterKernel<T, W, V, 1, 4>);
          case 801:
            return launch(RmsNormRegisterKernel<T, W, V, 1, 8>);
          case 1601:
            return launch(RmsNormRegisterKernel<T, W, V, 1, 16>);
          case 3201:
            return launch(RmsNormRegisterKernel<T, W, V, 1, 32>);
          case 3202:
            return launch(RmsNormRegisterKernel<T, W, V, 2, 32>);
          default:
            return launch(RmsNormRegisterKernel<T, W, V, 8, 32>);
        }
      });
}

}  // namespace {{python_name}}_cuda
