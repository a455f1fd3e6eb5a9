// The QK-norm + rope kernel (Qwen3's attention): each head of q and k is
// normalized (y = x * rsqrt(mean(x^2) + eps) * w, w per q or k) and rotated,
// in place, one read and one write of q and k in all: 2 x (q + k) bytes plus
// the tables. H200 (2026-12-02, the version that loaded the tables after the
// reduction): 1x32768 tokens, 32 + 8 heads of 128, bf16: 272 us, 60% of copy.
//
// Work split. A row is one head of one token; its d / 2 / V chunks (V
// rotation pairs as two Vec<T, V>, as RopeKernel holds them) go to `chunks`
// neighbouring lanes, a power of two up to 32, so a row never spans warps
// and its sum of squares is a butterfly of log2(chunks) shuffles. Rows run
// token-major, q's heads before k's. The weights and angles are loaded with
// x, before the reduction, so a lane waits on memory once. The normalized
// value stays in fp32 through the rotation: one rounding, at the store (rms_norm
// followed by rope rounds twice).
#pragma once

#include <cstdint>

#include "rope_kernel.cuh"

namespace rope_kernels {

struct QkNormRopeGrid {
  int64_t rows;  // tokens * (q heads + k heads)
  int64_t seq;   // tokens per batch entry
  int chunks;    // d / 2 / V lanes per row
  float inv_d;   // 1 / head_dim
  float eps;
};

// x' = norm(x) * cos + rotate(norm(x)) * sin for every head row of q and k.
// Launch: kRopeThreads threads per block, rows * chunks threads in all.
template <typename T, typename N, int V, bool kInterleaved, typename Angles>
__global__ void __launch_bounds__(kRopeThreads)
    QkNormRopeKernel(HeadRows<T> q, HeadRows<T> k, const N* __restrict__ q_weight,
                     const N* __restrict__ k_weight, QkNormRopeGrid grid, Angles angles) {
  __shared__ double turns[Angles::kTurns];
  angles.Prepare(turns);  // shared memory only: before the wait
  __syncthreads();
  kernels_common::WaitForPreviousKernel();
  kernels_common::AllowNextKernelLaunch();
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int chunk = static_cast<int>(t % grid.chunks);
  const int64_t row = t / grid.chunks;
  // Lanes past the last row stay to the end of the shuffles: every lane of
  // a warp takes part in each one.
  const bool valid = row < grid.rows;
  const int heads = q.heads + k.heads;
  const int64_t token = valid ? row / heads : 0;
  const int head = static_cast<int>(row % heads);
  const bool is_q = head < q.heads;
  const int h = is_q ? head : head - q.heads;
  const int64_t b = token / grid.seq;
  const int64_t s = token % grid.seq;
  T* x = is_q ? q.Row(b, s, h) : k.Row(b, s, h);
  const int lo_vec = kInterleaved ? 2 * chunk : chunk;
  const int hi_vec = kInterleaved ? 2 * chunk + 1 : grid.chunks + chunk;

  const RowSpan whole{0, 0, 0};
  const N* w = is_q ? q_weight : k_weight;
  Vec<T, V> lo = {}, hi = {};
  float w_lo[V] = {}, w_hi[V] = {}, c[2 * V] = {}, sn[2 * V] = {};
  if (valid) {
    lo = *BodyVector<V, false>(x, whole, lo_vec);
    hi = *BodyVector<V, false>(x, whole, hi_vec);
    LoadWeights<N, V>(w, lo_vec * V, w_lo);
    LoadWeights<N, V>(w, hi_vec * V, w_hi);
    angles.template Get<V, kInterleaved>(b, s, angles.PerHead() ? h : 0, lo_vec * V, hi_vec * V,
                                         turns, c, sn);
  }
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < V; ++i) sum += lo.Get(i) * lo.Get(i) + hi.Get(i) * hi.Get(i);
  for (int lanes = grid.chunks / 2; lanes > 0; lanes /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, lanes);
  }
  if (!valid) return;
  const float scale = rsqrtf(sum * grid.inv_d + grid.eps);
  float normed[2 * V], rotated[2 * V];
#pragma unroll
  for (int i = 0; i < V; ++i) {
    normed[i] = lo.Get(i) * scale * w_lo[i];
    normed[V + i] = hi.Get(i) * scale * w_hi[i];
  }
  RotateValues<V, kInterleaved>(normed, c, sn, rotated);
#pragma unroll
  for (int i = 0; i < V; ++i) {  // Set rounds to T
    lo.Set(i, rotated[i]);
    hi.Set(i, rotated[V + i]);
  }
  *BodyVector<V, false>(x, whole, lo_vec) = lo;
  *BodyVector<V, false>(x, whole, hi_vec) = hi;
}

}  // namespace rope_kernels
