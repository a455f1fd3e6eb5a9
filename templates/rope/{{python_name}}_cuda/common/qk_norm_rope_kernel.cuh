// The QK-norm + rope kernel (Qwen3's attention): each head of q and k is
// normalized (y = x * rsqrt(mean(x^2) + eps) * w, w per q or k) and rotated,
// in place, one read and one write of q and k in all: 2 x (q + k) bytes plus
// the tables. H200 (2026-12-04, results/h200-2026-12-04/run-1944), 1x32768
// tokens, 32 + 8 heads of 128, bf16: 169 us (97% of copy) at four heads a
// thread staged in shared memory (80 registers), 180 us (91%) at one head a
// thread (59); with 64-bit `/` and `%` in the index split 219 us, bound by
// instruction issue; loads under `if (valid)` (80 registers) 274 us.
//
// Work split. A row is kHeads neighbouring heads of one token (1, or 4 on
// launches of many waves); its d / 2 / V chunks (V rotation pairs as two
// Vec<T, V>, as RopeKernel holds them) go to `chunks` neighbouring lanes, a
// power of two up to 32, so a row never spans warps and each head's sum of
// squares is a butterfly of log2(chunks) shuffles. Rows run token-major,
// q's heads before k's. The weights and angles are loaded with x, before
// the reduction, so a lane waits on memory once. The normalized value stays
// in fp32 through the rotation: one rounding, at the store (rms_norm
// followed by rope rounds twice).
//
// With kToCache, k's rows go to a key cache instead of back into k: the
// decode step's cache write (transformers' StaticCache index_copy_) costs no
// launch of its own.
#pragma once

#include <cstdint>

#include "held_row.cuh"
#include "rope_kernel.cuh"

namespace rope_kernels {

// The thread index splits into (token, head group, chunk) by a shift and two
// FastDivmods: the plan keeps rows * chunks threads below 2^32.
struct QkNormRopeGrid {
  int64_t rows;                       // tokens * (q groups + k groups)
  kernels_common::FastDivmod seq;     // tokens per batch entry
  kernels_common::FastDivmod groups;  // head groups: q groups + k groups
  int q_groups;                       // ceil(q heads / kHeads)
  int chunks;                         // d / 2 / V lanes per row, a power of two
  int chunk_shift;                    // log2(chunks)
  float inv_d;                        // 1 / head_dim
  float eps;
};

// Where k's rows go with kToCache: cache.Row(b, *first_slot + s, h), the
// slot read on the device (a cache length kept in a tensor); slots at or
// past `slots` are not written.
template <typename T>
struct KCacheRows {
  HeadRows<T> rows;  // seq_stride steps one slot
  const int64_t* first_slot;
  int64_t slots;
};

// x' = norm(x) * cos + rotate(norm(x)) * sin for every head row of q and k.
// Launch: kRopeThreads threads per block, rows * chunks threads in all; a
// row is kHeads neighbouring heads of one token (of q, or of k), so a
// thread's index math, weights and tables serve kHeads heads and its loads
// of all of them are in flight together. The angles come from tables (W:
// their dtype). kMinBlocks: the blocks per SM __launch_bounds__ promises (0:
// none). kToCache: k's rows are written to `cache`, k itself is left as it
// was. kHeads > 1 takes head h0's table for the whole row: the plan groups
// heads only where one table serves every head.
template <typename T, typename N, typename W, int V, bool kInterleaved, int kHeads = 1,
          int kMinBlocks = 0, bool kToCache = false>
__global__ void __launch_bounds__(kRopeThreads, kMinBlocks)
    QkNormRopeKernel(HeadRows<T> q, HeadRows<T> k, const N* __restrict__ q_weight,
                     const N* __restrict__ k_weight, QkNormRopeGrid grid, TableAngles<W> angles,
                     KCacheRows<T> cache) {
  kernels_common::WaitForPreviousKernel();
  kernels_common::AllowNextKernelLaunch();
  // After the wait: the previous kernel may be what advanced the cache's length.
  const int64_t first_slot = kToCache ? *cache.first_slot : 0;
  // 32-bit index arithmetic: 64-bit `/` and `%` here made this kernel bound
  // by instruction issue (some 500 a thread, half of them before the first
  // load: ptxas, CUDA 13.0).
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const int chunk = static_cast<int>(t & static_cast<uint32_t>(grid.chunks - 1));
  const uint32_t row = t >> grid.chunk_shift;
  // Lanes past the last row stay to the end of the shuffles (every lane of
  // a warp takes part in each one) and read token 0's row, so every load is
  // unconditional: loads under `if (valid)` with zeroed registers took 80-96
  // registers in bf16 (ptxas, sm_90a), 48 without. A row's lanes are all
  // valid or all not, so such a sum never reaches a valid row.
  const bool valid = row < grid.rows;
  uint32_t token;
  const int group = static_cast<int>(grid.groups.DivMod(row, &token));
  if (!valid) token = 0;
  const bool is_q = group < grid.q_groups;
  const int h0 = (is_q ? group : group - grid.q_groups) * kHeads;
  const int heads = is_q ? q.heads : k.heads;
  const int64_t head_stride = is_q ? q.head_stride : k.head_stride;
  uint32_t batch;
  const int64_t s = grid.seq.DivMod(token, &batch);
  const int64_t b = batch;
  T* x = is_q ? q.Row(b, s, h0) : k.Row(b, s, h0);
  const int lo_vec = kInterleaved ? 2 * chunk : chunk;
  const int hi_vec = kInterleaved ? 2 * chunk + 1 : grid.chunks + chunk;
  // The tensor's last group may be partial: head h0 + r past its last head
  // is read as head h0 again, so loads stay unconditional, and never stored.
  const auto in_tensor = [&](int r) { return kHeads == 1 || h0 + r < heads; };
  const auto head_of = [&](int r) { return in_tensor(r) ? h0 + r : h0; };

  const RowSpan whole{0, 0, 0};
  const N* w = is_q ? q_weight : k_weight;
  // With kHeads > 1 the heads' vectors are copied into shared memory
  // (cp.async): all of them in flight at once without a register each (held
  // in registers, two heads took 92 registers and four 117, bf16).
  constexpr bool kStaged = kHeads > 1;
  __shared__ Vec<T, V> staged[kStaged ? 2 * kHeads * kRopeThreads : 1];
  Vec<T, V> lo[kStaged ? 1 : kHeads];
  Vec<T, V> hi[kStaged ? 1 : kHeads];
#pragma unroll
  for (int r = 0; r < kHeads; ++r) {
    const T* xr = x + (head_of(r) - h0) * head_stride;
    if constexpr (kStaged) {
      kernels_common::CopyToShared<T, V>(kernels_common::StageSlot<T, V>(staged, 2 * r),
                                         xr + lo_vec * V);
      kernels_common::CopyToShared<T, V>(kernels_common::StageSlot<T, V>(staged, 2 * r + 1),
                                         xr + hi_vec * V);
    } else {
      lo[r] = *BodyVector<V, false>(xr, whole, lo_vec);
      hi[r] = *BodyVector<V, false>(xr, whole, hi_vec);
    }
  }
  if constexpr (kStaged) kernels_common::CommitCopies();
  // Head r's two vectors, from registers or from its slots.
  const auto head_vectors = [&](int r, Vec<T, V>* l, Vec<T, V>* h) {
    if constexpr (kStaged) {
      asm volatile("" ::: "memory");  // read here, not all heads at once ahead
      *l = *kernels_common::StageSlot<T, V>(staged, 2 * r);
      *h = *kernels_common::StageSlot<T, V>(staged, 2 * r + 1);
    } else {
      *l = lo[r];
      *h = hi[r];
    }
  };
  // Weights and tables are loaded with x, before the reduction, and stay in
  // their own dtype until used.
  Vec<N, V> weight[2] = {*reinterpret_cast<const Vec<N, V>*>(w + lo_vec * V),
                         *reinterpret_cast<const Vec<N, V>*>(w + hi_vec * V)};
  const Vec<N, V>& w_lo = weight[0];
  const Vec<N, V>& w_hi = weight[1];
  auto table = angles.template Load<V>(b, s, angles.PerHead() ? h0 : 0, lo_vec * V, hi_vec * V);
  if constexpr (kStaged) kernels_common::WaitForCopies();
  float sum[kHeads];
#pragma unroll
  for (int r = 0; r < kHeads; ++r) {
    Vec<T, V> l, h;
    head_vectors(r, &l, &h);
    sum[r] = 0.f;
#pragma unroll
    for (int i = 0; i < V; ++i) sum[r] += l.Get(i) * l.Get(i) + h.Get(i) * h.Get(i);
  }
#pragma unroll
  for (int lanes = kernels_common::kWarpSize / 2; lanes > 0; lanes /= 2) {
    if (lanes < grid.chunks) {
#pragma unroll
      for (int r = 0; r < kHeads; ++r) sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], lanes);
    }
  }
  if (!valid) return;
#pragma unroll
  for (int r = 0; r < kHeads; ++r) {
    if (!in_tensor(r)) break;  // the group's last real head is done
    if constexpr (kHeads > 1) {  // not converted once and held as floats
      table.Hide();
      kernels_common::KeepPacked(weight);
    }
    Vec<T, V> lo_r, hi_r;
    head_vectors(r, &lo_r, &hi_r);
    const float scale = rsqrtf(sum[r] * grid.inv_d + grid.eps);
    // Pair by pair, each value converted where it is used.
    const auto rotate_pair = [&](Vec<T, V>& a, int i, const Vec<N, V>& wa, const Vec<W, V>& ca,
                                 const Vec<W, V>& sa, Vec<T, V>& b, int j, const Vec<N, V>& wb,
                                 const Vec<W, V>& cb, const Vec<W, V>& sb) {
      const RotatedPair p = RotatePair(a.Get(i) * scale * wa.Get(i), b.Get(j) * scale * wb.Get(j),
                                       ca.Get(i), sa.Get(i), cb.Get(j), sb.Get(j));
      a.Set(i, p.first);  // Set rounds to T
      b.Set(j, p.second);
    };
    if constexpr (kInterleaved) {  // pairs (2p, 2p + 1) inside each vector
#pragma unroll
      for (int p = 0; p < V; p += 2) {
        rotate_pair(lo_r, p, w_lo, table.cos_lo, table.sin_lo, lo_r, p + 1, w_lo, table.cos_lo,
                    table.sin_lo);
        rotate_pair(hi_r, p, w_hi, table.cos_hi, table.sin_hi, hi_r, p + 1, w_hi, table.cos_hi,
                    table.sin_hi);
      }
    } else {  // pairs (i, i + d/2): element i of the low vector and of the high one
#pragma unroll
      for (int i = 0; i < V; ++i) {
        rotate_pair(lo_r, i, w_lo, table.cos_lo, table.sin_lo, hi_r, i, w_hi, table.cos_hi,
                    table.sin_hi);
      }
    }
    T* out = x + r * head_stride;
    if constexpr (kToCache) {
      if (!is_q) {
        const int64_t slot = first_slot + s;
        if (slot < 0 || slot >= cache.slots) return;
        out = cache.rows.Row(b, slot, h0 + r);
      }
    }
    *BodyVector<V, false>(out, whole, lo_vec) = lo_r;
    *BodyVector<V, false>(out, whole, hi_vec) = hi_r;
  }
}

}  // namespace rope_kernels
