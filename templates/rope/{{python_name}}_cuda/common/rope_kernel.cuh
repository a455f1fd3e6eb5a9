// The rotary-embedding kernel.
//
// Work split. A thread owns one (token, chunk) of every head it visits: a
// chunk is V rotation pairs held as two Vec<T, V> (half-split: elements
// [cV, cV + V) and the same + d/2; interleaved: elements [2cV, 2cV + 2V), or
// with kHalves as half-split's, each vector holding V / 2 whole pairs).
// Heads are "slots" 0 .. max(q heads, k heads) - 1; slot h rotates q head h
// and k head h where they exist, so one angle serves both. A thread visits
// slots g, g + groups, ... one after the other, with one angle computation
// for all of them unless the angles differ per head (per-head tables,
// LTX-Video). One head's chunk is held at a time, and the angles as their
// source has them (V float pairs, or the tables' raw vectors), so registers
// stay at 48 (computed angles, interleaved bf16 tables) to 58 (half-split
// bf16 tables) and 76 (fp32 tables) with 16-byte vectors (ptxas, sm_90a):
// 3-5 blocks per SM. The staged kernel (kStaged) first copies every slot's
// chunk into shared memory (StageSlots), so its loads are in flight together
// without a register each, then rotates them one by one from there.
//
// The angle sources (TableAngles, PositionAngles, LtxVideoAngles) are in
// rope_angles.cuh.
#pragma once

#include <cstdint>

#include "fast_divmod.h"
#include "overlap.cuh"
#include "rope_angles.cuh"
#include "row_span.cuh"
#include "staged_load.cuh"
#include "vec.cuh"

namespace rope_kernels {

using kernels_common::BodyVector;
using kernels_common::RowSpan;
using kernels_common::Vec;

constexpr int kRopeThreads = 256;

// q or k: heads of head_dim contiguous elements, at any batch / token /
// head strides (elements).
template <typename T>
struct HeadRows {
  T* ptr;
  int64_t batch_stride;
  int64_t seq_stride;
  int64_t head_stride;
  int heads;

  __device__ __forceinline__ T* Row(int64_t b, int64_t s, int h) const {
    return ptr + b * batch_stride + s * seq_stride + h * head_stride;
  }
};

// The thread index splits into (token, group, chunk) by FastDivmod: the
// plan keeps threads below 2^32.
struct RopeGrid {
  int64_t threads;                    // tokens * groups * chunks
  kernels_common::FastDivmod seq;     // tokens per batch entry
  kernels_common::FastDivmod chunks;  // d / 2 / V
  kernels_common::FastDivmod groups;  // slot groups: a thread takes slots g, g + groups, ...
  int slots;  // max(q heads, k heads)
  int half;   // d / 2: rotation pairs per head
};

// One rotation pair (x1, x2) in fp32, each element with its own cos and
// sin: rotate(x) = (-x2, x1), so (x1 c1 - x2 s1, x2 c2 + x1 s2).
struct RotatedPair {
  float first;
  float second;
};
__device__ __forceinline__ RotatedPair RotatePair(float x1, float x2, float c1, float s1, float c2,
                                                  float s2) {
  return {x1 * c1 - x2 * s1, x2 * c2 + x1 * s2};
}

// Rotates one chunk in registers, pair by pair in fp32, rounding once to T.
// Pairs are (i, i + V) across the two vectors (half-split) or (2p, 2p + 1)
// (interleaved); element k of the chunk is the low vector's k < V, then the
// high vector's. Angles: a source's Held chunk (Cos(k), Sin(k)).
template <typename T, int V, bool kInterleaved, typename Held>
__device__ __forceinline__ void Rotate(Vec<T, V>& lo, Vec<T, V>& hi, const Held& angles) {
  const auto at = [&](int k) -> float { return k < V ? lo.Get(k) : hi.Get(k - V); };
  const auto set = [&](int k, float v) { k < V ? lo.Set(k, v) : hi.Set(k - V, v); };
#pragma unroll
  for (int p = 0; p < V; ++p) {
    const int a = kInterleaved ? 2 * p : p;
    const int b = kInterleaved ? 2 * p + 1 : p + V;
    const RotatedPair r = RotatePair(at(a), at(b), angles.Cos(a), angles.Sin(a), angles.Cos(b),
                                     angles.Sin(b));
    set(a, r.first);
    set(b, r.second);
  }
}

// Rotates head h's chunk of `rows` (if the tensor has head h) in place.
template <typename T, int V, bool kInterleaved, typename Held>
__device__ __forceinline__ void RotateChunk(const HeadRows<T>& rows, int64_t b, int64_t s, int h,
                                            int lo_vec, int hi_vec, const Held& angles) {
  if (h >= rows.heads) return;
  const RowSpan whole{0, 0, 0};
  T* row = rows.Row(b, s, h);
  Vec<T, V> lo = *BodyVector<V, false>(row, whole, lo_vec);
  Vec<T, V> hi = *BodyVector<V, false>(row, whole, hi_vec);
  Rotate<T, V, kInterleaved>(lo, hi, angles);
  *BodyVector<V, false>(row, whole, lo_vec) = lo;
  *BodyVector<V, false>(row, whole, hi_vec) = hi;
}

// Ties v's registers to this point of the program, after the memory
// operations before it, so the compiler cannot work on v earlier (two heads'
// rotations at once: 95 -> 80 registers with LTX-Video's angles, ptxas).
template <typename T, int V>
__device__ __forceinline__ void KeepAfterStores(Vec<T, V>& v) {
  if constexpr (sizeof(Vec<T, V>) % 4 == 0) {  // a lone 16-bit element: left free
    auto* words = reinterpret_cast<uint32_t*>(&v);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(v) / 4); ++i) {
      asm volatile("" : "+r"(words[i])::"memory");
    }
  }
}

// Rotates head h's chunk of q and of k (each where it has head h) in place,
// both loaded before either is stored: q and k never overlap (the binding
// refuses it), and the compiler, not knowing that, would otherwise hold k's
// loads behind q's stores, two DRAM round trips a slot instead of one.
// RotateChunk's steps written out again on purpose: a struct of a row and its
// two vectors shared by both made nvcc split RotateChunk's vector stores
// (st.global.v2.u16 into two st.global.u16, CUDA 13.0).
// angles_after_loads() gives the angles once q's and k's loads are issued,
// so angles computed there overlap those loads.
template <typename T, int V, bool kInterleaved, typename AnglesAfterLoads>
__device__ __forceinline__ void RotateSlot(const HeadRows<T>& q, const HeadRows<T>& k, int64_t b,
                                           int64_t s, int h, int lo_vec, int hi_vec,
                                           const AnglesAfterLoads& angles_after_loads) {
  const RowSpan whole{0, 0, 0};
  const bool has_q = h < q.heads;
  const bool has_k = h < k.heads;
  T* q_row = has_q ? q.Row(b, s, h) : nullptr;
  T* k_row = has_k ? k.Row(b, s, h) : nullptr;
  Vec<T, V> q_lo, q_hi, k_lo, k_hi;
  if (has_q) {
    q_lo = *BodyVector<V, false>(q_row, whole, lo_vec);
    q_hi = *BodyVector<V, false>(q_row, whole, hi_vec);
  }
  if (has_k) {
    k_lo = *BodyVector<V, false>(k_row, whole, lo_vec);
    k_hi = *BodyVector<V, false>(k_row, whole, hi_vec);
  }
  const auto& angles = angles_after_loads();
  if (has_q) {
    Rotate<T, V, kInterleaved>(q_lo, q_hi, angles);
    *BodyVector<V, false>(q_row, whole, lo_vec) = q_lo;
    *BodyVector<V, false>(q_row, whole, hi_vec) = q_hi;
  }
  if (has_k) {
    KeepAfterStores(k_lo);
    KeepAfterStores(k_hi);
    Rotate<T, V, kInterleaved>(k_lo, k_hi, angles);
    *BodyVector<V, false>(k_row, whole, lo_vec) = k_lo;
    *BodyVector<V, false>(k_row, whole, hi_vec) = k_hi;
  }
}

// Copies the chunk of every q and k head this thread visits (heads first,
// first + step, ...) into its shared-memory slots by cp.async, in the order
// the kernel reads them back (RotateStaged): q's two vectors, then k's,
// head by head. All of a thread's loads are then in flight at once,
// without a register each; slot by slot, a thread has one slot's 32 bytes
// in flight (about 1000 threads an SM at 58 registers: some 4 MB over the
// GPU).
template <typename T, int V>
__device__ __forceinline__ void StageSlots(const HeadRows<T>& q, const HeadRows<T>& k,
                                           int64_t b, int64_t s, int first, int step, int slots,
                                           int lo_vec, int hi_vec, void* staged) {
  using kernels_common::CopyToShared;
  using kernels_common::StageSlot;
  int n = 0;
  const auto stage = [&](const HeadRows<T>& rows, int h) {
    const T* row = rows.Row(b, s, h);
    CopyToShared<T, V>(StageSlot<T, V>(staged, n++), row + lo_vec * V);
    CopyToShared<T, V>(StageSlot<T, V>(staged, n++), row + hi_vec * V);
  };
  for (int h = first; h < slots; h += step) {
    if (h < q.heads) stage(q, h);
    if (h < k.heads) stage(k, h);
  }
  kernels_common::CommitCopies();
}

// Rotates the chunk staged at slots n, n + 1 into head h of `rows`.
template <typename T, int V, bool kInterleaved, typename Held>
__device__ __forceinline__ void RotateStaged(const HeadRows<T>& rows, int64_t b, int64_t s, int h,
                                             int lo_vec, int hi_vec, const Held& angles,
                                             void* staged, int n) {
  Vec<T, V> lo = *kernels_common::StageSlot<T, V>(staged, n);
  Vec<T, V> hi = *kernels_common::StageSlot<T, V>(staged, n + 1);
  Rotate<T, V, kInterleaved>(lo, hi, angles);
  T* row = rows.Row(b, s, h);
  *reinterpret_cast<Vec<T, V>*>(row + lo_vec * V) = lo;
  *reinterpret_cast<Vec<T, V>*>(row + hi_vec * V) = hi;
}

// Shared memory a block of the staged kernel takes: two vectors of every q
// and k head a thread visits (slot groups `groups`).
template <typename T, int V>
constexpr size_t StagedSlotBytes(int64_t q_heads, int64_t k_heads, int64_t groups) {
  return size_t{2} * static_cast<size_t>((q_heads + groups - 1) / groups +
                                         (k_heads + groups - 1) / groups) *
         kRopeThreads * sizeof(Vec<T, V>);
}

// Launch: kRopeThreads threads per block, grid.threads threads in all
// (token-major, then slot group, then chunk: neighbouring threads touch
// neighbouring vectors of a head). kMinBlocks: the blocks per SM
// __launch_bounds__ promises (0: none). kHalves: interleaved chunks of V >= 2
// take their two vectors from the head's two halves, as half-split ones do,
// so a load instruction's lanes read neighbouring vectors (interleaved pairs
// lie inside a vector); else from neighbouring places, every other vector a
// lane apart. kQkLoadsFirst: RotateSlot (q's and k's loads together) rather
// than q, then k (rope_tuning.h has what each costs). kStaged: every slot's
// q and k copied into shared memory first (StageSlots; the launch passes
// StagedSlotBytes), then rotated slot by slot from there. kLateAngles: the
// loads-first kernel gets a slot's angles after its q and k loads are
// issued (else before them).
template <typename T, int V, bool kInterleaved, typename Angles, int kMinBlocks = 0,
          bool kHalves = false, bool kQkLoadsFirst = false, bool kStaged = false,
          bool kLateAngles = Angles::kComputed>
__global__ void __launch_bounds__(kRopeThreads, kMinBlocks)
    RopeKernel(HeadRows<T> q, HeadRows<T> k, RopeGrid grid, Angles angles) {
  static_assert(!(kQkLoadsFirst && kStaged), "the staged kernel loads every slot first already");
  extern __shared__ __align__(16) unsigned char staged[];  // kStaged: the slots' vectors
  __shared__ double turns[Angles::kTurns];
  angles.Prepare(turns);  // shared memory only: before the wait
  __syncthreads();
  kernels_common::WaitForPreviousKernel();
  kernels_common::AllowNextKernelLaunch();
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= grid.threads) return;
  uint32_t rest, token, b;
  const int chunk = static_cast<int>(grid.chunks.DivMod(static_cast<uint32_t>(t), &rest));
  const int group = static_cast<int>(grid.groups.DivMod(rest, &token));
  const int64_t s = grid.seq.DivMod(token, &b);
  // The chunk's two vectors in a head (vector indices; elements * V).
  constexpr bool kAdjacent = kInterleaved && (V == 1 || !kHalves);
  const int lo_vec = kAdjacent ? 2 * chunk : chunk;
  const int hi_vec = kAdjacent ? 2 * chunk + 1 : static_cast<int>(grid.chunks.divisor) + chunk;

  const int groups = static_cast<int>(grid.groups.divisor);
  if constexpr (kStaged) {
    StageSlots<T, V>(q, k, b, s, group, groups, grid.slots, lo_vec, hi_vec, staged);
  }
  typename Angles::template Held<V, kInterleaved> held;
  const bool per_head = angles.PerHead();
  const int lo = lo_vec * V;  // elements
  const int hi = hi_vec * V;
  // The loads-first kernel computes angles (Angles::kComputed) after a
  // slot's q and k loads are issued, so the sincos work overlaps them
  // (positions at decode 1.5-5% faster; H200, results/h200-2026-12-05).
  // Tables are read before q and k unless the launch asks otherwise: after
  // them, LTX-Video's per-head tables were 0.1-1.4% slower.
  constexpr bool kLate = kQkLoadsFirst && kLateAngles;
  if (!per_head && !kLate) {
    held = angles.template Get<V, kInterleaved>(b, s, 0, lo, hi, turns);
  }
  if constexpr (kStaged) kernels_common::WaitForCopies();  // own slots only: no barrier
  int n = 0;  // kStaged: the next staged vector
  bool shared_angles_held = !kLate;  // not per head: held once for every slot
  for (int h = group; h < grid.slots; h += groups) {
    // A per-head table's head h serves q head h and k head h alike.
    const auto slot_angles = [&]() -> const decltype(held)& {
      if (per_head || !shared_angles_held) {
        held = angles.template Get<V, kInterleaved>(b, s, per_head ? h : 0, lo, hi, turns);
        shared_angles_held = true;
      } else {
        held.Hide();
      }
      return held;
    };
    if constexpr (kLate) {
      RotateSlot<T, V, kInterleaved>(q, k, b, s, h, lo_vec, hi_vec, slot_angles);
    } else if constexpr (kQkLoadsFirst) {
      const auto& ready = slot_angles();
      RotateSlot<T, V, kInterleaved>(q, k, b, s, h, lo_vec, hi_vec,
                                     [&]() -> const decltype(held)& { return ready; });
    } else if constexpr (kStaged) {
      slot_angles();
      if (h < q.heads) {
        RotateStaged<T, V, kInterleaved>(q, b, s, h, lo_vec, hi_vec, held, staged, n);
        n += 2;
      }
      if (h < k.heads) {
        RotateStaged<T, V, kInterleaved>(k, b, s, h, lo_vec, hi_vec, held, staged, n);
        n += 2;
      }
    } else {
      slot_angles();
      RotateChunk<T, V, kInterleaved>(q, b, s, h, lo_vec, hi_vec, held);
      RotateChunk<T, V, kInterleaved>(k, b, s, h, lo_vec, hi_vec, held);
    }
  }
}

}  // namespace rope_kernels
