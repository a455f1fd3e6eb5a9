// The few-rows GEMM (M <= 16, decode-like): C[M, N] = A[M, K] @ B[K, N]
// (+ bias), then gelu_tanh, as a GEMV over N. It is bound by reading B once: 4 * K * N bytes
// (64 MB at 1x4096x4096, ~16 us at 4 TB/s), against 2 * M * N * K flops
// (up to 32 per 4 bytes of B at M = 16).
//
// Launch shape (gemm_plan.h, FewRows): one block of 512 threads per 32
// columns of C; lane l of a warp owns columns 4 * (l % 8) + [0, 4) of the
// block and K rows 4 * (l / 8) + [0, 4) of its warp's 16, so one warp reads
// four 128-byte runs of B per load instruction and the block's 64 groups of
// 4 rows walk K 256 rows at a time. Each thread keeps kRows x 4 sums (kRows
// = M rounded up to a power of two, a template argument), reading A's 4
// values of a row for its 4 K rows as one vector (L1 hits: the 8 lanes of
// a group read the same one). The sums of the 64 groups meet through warp
// shuffles (4 groups per warp) and shared memory (16 warps); the bias and the
// GELU join at the store. Each output's FMA chain is K / 64 long.
//
// Measured (H200): pending (the previous tiled kernel: 684 us at 1x4096x4096,
// 0.03x cuBLAS, 2026-12-01).
#pragma once

#include "common/overlap.cuh"
#include "common/vec.cuh"
#include "gelu.cuh"
#include "gemm_plan.h"

namespace linear_gelu_cuda {
namespace few_rows {

using F4 = kernels_common::Vec<float, 4>;

// Four floats at `at`, `inside` of them (possibly <= 0 or > 4) within the
// row: one 16-byte load (kVector: `inside` is a multiple of 4) or checked
// scalar loads; zeros outside.
template <bool kVector>
__device__ __forceinline__ F4 LoadFour(const float* at, bool row_inside, int inside) {
  F4 v{};
  if constexpr (kVector) {
    if (row_inside && inside > 0) v = *reinterpret_cast<const F4*>(at);
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) v.v[i] = row_inside && i < inside ? at[i] : 0.f;
  }
  return v;
}

template <int kRows, bool kVector>
__global__ void __launch_bounds__(FewRows::kThreads)
    FewRowsKernel(float* __restrict__ c, const float* __restrict__ a,
                  const float* __restrict__ b, const float* __restrict__ bias, int m, int n, int k,
                  int64_t lda, int64_t ldb) {
  using F = FewRows;
  alignas(16) __shared__ float warp_sums[F::kWarps][kRows][F::kCols];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int lane_n = lane % F::kLanesN;
  const int group = warp * (32 / F::kLanesN) + lane / F::kLanesN;  // 0 .. kKGroups - 1
  const int64_t col = static_cast<int64_t>(blockIdx.x) * F::kCols + lane_n * 4;
  const int cols_left = static_cast<int>(n - col);  // may be <= 0 in the last block

  __builtin_assume(m >= 1 && m <= kRows);  // no code for an empty A
  kernels_common::WaitForPreviousKernel();
  kernels_common::AllowNextKernelLaunch();

  float sums[kRows][4] = {};
  const float* b_at = b + (col < n ? col : 0);
  // B's 4 rows at k0 (zeros past K), read one step ahead of their FMAs so
  // that a step's loads are in flight while the previous step multiplies.
  auto load_b = [&](int k0, F4 (&bv)[4]) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      bv[j] = LoadFour<kVector>(b_at + (k0 + j) * ldb, k0 + j < k, cols_left);
    }
  };
  F4 b_now[4];
  F4 b_next[4];
  load_b(group * 4, b_now);
  for (int k0 = group * 4; k0 < k; k0 += F::kKStep) {
    if (k0 + F::kKStep < k) load_b(k0 + F::kKStep, b_next);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      // Rows past m: zeros, never read (kRows rounds m up).
      const F4 av = LoadFour<kVector>(a + r * lda + k0, r < m, k - k0);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int i = 0; i < 4; ++i) sums[r][i] = fmaf(av.v[j], b_now[j].v[i], sums[r][i]);
      }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) b_now[j] = b_next[j];
  }

  // The warp's 4 groups: lanes 8 and 16 apart hold the same columns.
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int offset = F::kLanesN; offset < 32; offset *= 2) {
        sums[r][i] += __shfl_xor_sync(0xffffffffu, sums[r][i], offset);
      }
    }
  }
  if (lane < F::kLanesN) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      F4 v;
#pragma unroll
      for (int i = 0; i < 4; ++i) v.v[i] = sums[r][i];
      *reinterpret_cast<F4*>(&warp_sums[warp][r][lane_n * 4]) = v;
    }
  }
  __syncthreads();

  // One thread per output of the block: kRows x 32 <= 512.
  const int r = threadIdx.x / F::kCols;
  const int col_in = threadIdx.x % F::kCols;
  const int64_t out_col = static_cast<int64_t>(blockIdx.x) * F::kCols + col_in;
  if (r >= kRows || r >= m || out_col >= n) return;
  float total = bias != nullptr ? bias[out_col] : 0.f;
#pragma unroll
  for (int w = 0; w < F::kWarps; ++w) total += warp_sums[w][r][col_in];
  c[r * static_cast<int64_t>(n) + out_col] = GeluTanh(total);
}

}  // namespace few_rows
}  // namespace linear_gelu_cuda
