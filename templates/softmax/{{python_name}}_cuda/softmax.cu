// Softmax over the last dimension: y = exp(x - max(x)) / sum(exp(x - max(x)))
// per row, in float32 for fp32 / fp16 / bf16 x and y (common/softmax_row.cuh:
// -inf, all -inf rows and magnitudes).
//
// Bytes moved (the floor): rows * cols * sizeof(T) read + the same written.
// Floor time = bytes / measured copy bandwidth (`kbuild doctor` measures it;
// `kbuild bench` reports each case as a % of it).
//
// Launch shape: the library's row plan (common/row_plan.h) with 8 vectors of
// V = 16 / sizeof(T) elements per thread: 4-32 lanes per row up to 32
// vectors (256 bf16 elements), a warp per row up to 128 (1024), a block per
// row up to 4096 (32768 bf16 elements: Qwen3 / LTX attention rows, 32K
// contexts). Those rows stay in registers: x is read once, and the row
// reduces its max, then the sum of exp(v - max), no exp inside a reduction
// (one __syncthreads each at most). Longer rows, up to 8 x 4096 vectors
// (262144 bf16 elements, 131072 fp32), are split over clusters of 2-8 blocks
// that each hold their share in registers, x read once
// (SoftmaxHeldClusterKernel), where that launch runs in one wave or x
// outgrows L2 (common/softmax_plan.h). Other long rows take two passes, an
// online (max, sum) per thread then the output (x re-read from L1 / L2);
// fewer of them than SMs, of 1024 vectors or more, are each split over a
// cluster of 2-8 looping blocks. A cluster's blocks combine their (max, sum)
// through distributed shared memory. Rows that start off a 16-byte
// boundary split into a scalar head, a 16-byte body and a scalar tail
// (common/row_span.h). Launched overlapped (common/overlap.cuh).
//
// measured (H200, 2026-12-05, torch 2.11.0+cu130, CUDA 13.0, kbuild bench;
// results/h200-2026-12-05 run C): 86016x2688 bf16 225.1 us, 97.1% of copy,
// 1.14x Liger, 3.76x torch.compile.

#include "common/cluster_reduce.cuh"
#include "common/held_row.cuh"
#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/row_slot.cuh"  // RowSlot: the row and vectors a thread owns
#include "common/row_span.cuh"
#include "common/softmax_plan.h"
#include "common/softmax_row.cuh"
#include "softmax.h"

namespace {

using namespace kernels_common;

// Values per thread whose exps are kept in fp32 registers between the sum
// and the store (the 2048-element bf16 rows of the block path hold 16).
constexpr int kKeptExps = 16;

// The register kernels' minimum blocks per SM (__launch_bounds__).
// - The block paths of aligned rows that keep their exps ask for 32
//   registers, so every thread of an SM is resident (4 blocks of 512). The
//   bf16 block path of 4096-wide rows took 34, allocated as 40 (8 a thread
//   at a time): 6 blocks of 256 an SM. At 32, 86016x2688 bf16 went 238.4 ->
//   225.1 us, 91.7% -> 97.1% of copy (H200, 2026-12-05,
//   results/h200-2026-12-05 run C). The warp and split-row paths spilled at
//   32 (ptxas, CUDA 13.0).
// - Scalar rows (V == 1) ask for one: under ptxas's default register target
//   the fp32 block path with 8 per thread spilled 12 bytes (48 registers
//   without).
template <int V, int kVecs, int kGroup, bool kSplit>
constexpr int kRegisterMinBlocks =
    V == 1 ? 1
           : (kVecs * V <= kKeptExps && kGroup == kWholeBlock && !kSplit
                  ? 2048 / kMaxBlockThreads  // sm_90's threads per SM
                  : 0);

// Two A/B knobs (kbuild --define NAME=1; 0 by default) for the rows past
// kKeptExps values a thread: fp32 2048x32768 ran 0.93x Liger on the H200, at
// 35% SM throughput against Liger's 25% (ncu, results/h200-2026-12-05 run
// D): each value took an exp in the online (max, sum), more in the pair
// merges, and another at the store.
// - SOFTMAX_CLUSTER_TWO_REDUCTIONS: held clusters reduce the row's max, then
//   the sum of exp(v - max), as the register paths do (two exchanges through
//   distributed shared memory instead of one).
// - SOFTMAX_EXPS_IN_PLACE: fp32 rows keep exp(v - max) in x's registers from
//   the sum to the store (one exp a value; the block path and, with the
//   knob above, the held clusters).
// - SOFTMAX_CLUSTER_KEPT_EXPS: fp32 held clusters keep exp(v - m) against
//   the thread's own max m in x's registers, merge the (max, sum) pairs in
//   one exchange as now, and store exp(v - m) * exp(m - max) / sum: one exp
//   a value with one exchange (the knobs above together take two).
// - SOFTMAX_HELD_PAIR_AS_BLOCK: an fp32 held cluster of 2 blocks runs as one
//   block of twice the threads (2048x32768: 1024 threads a row, Liger's
//   shape), reducing through shared memory alone, with no cluster barrier;
//   with SOFTMAX_EXPS_IN_PLACE one exp a value.
#ifndef SOFTMAX_CLUSTER_TWO_REDUCTIONS
#define SOFTMAX_CLUSTER_TWO_REDUCTIONS 0
#endif
#ifndef SOFTMAX_EXPS_IN_PLACE
#define SOFTMAX_EXPS_IN_PLACE 0
#endif
#ifndef SOFTMAX_CLUSTER_KEPT_EXPS
#define SOFTMAX_CLUSTER_KEPT_EXPS 0
#endif
#ifndef SOFTMAX_HELD_PAIR_AS_BLOCK
#define SOFTMAX_HELD_PAIR_AS_BLOCK 0
#endif

// The slot of a thread on a held path: CurrentRowSlot's, or on the held
// cluster path, its block's row (blockIdx.x / kCluster) with the block's
// threads from 0 (ShareOf moves them to the block's share).
template <int kGroup, int kCluster>
__device__ __forceinline__ RowSlot HeldRowSlot(int64_t rows) {
  if constexpr (kCluster == 1) {
    return CurrentRowSlot<kGroup>(rows);
  } else {
    return {static_cast<int64_t>(blockIdx.x / kCluster),
            static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), true};
  }
}

// The share of a row that block rank blockIdx.x % kCluster of its cluster
// works on (the whole row without a cluster): body vectors [begin, end) and
// the edge elements, all of them on rank 0, none elsewhere.
struct RowShare {
  int begin;
  int end;
  RowSpan edges;
};

template <int kCluster>
__device__ __forceinline__ RowShare ShareOf(const RowSpan& span) {
  if constexpr (kCluster == 1) {
    return {0, span.body, span};
  } else {
    const int rank = static_cast<int>(blockIdx.x % kCluster);
    const int share = (span.body + kCluster - 1) / kCluster;
    const int begin = rank * share;
    return {begin, min(span.body, begin + share), rank == 0 ? span : RowSpan{}};
  }
}

// A row (or, with kCluster > 1, a block's share of it) held in registers:
// every register path of the row plan (kGroup lanes or a block per row,
// kVecs vectors per thread) and the held cluster path (a block per share,
// the blocks' (max, sum) combined through distributed shared memory).
template <typename T, int V, int kVecs, int kGroup, bool kSplit, int kCluster>
__device__ __forceinline__ void SoftmaxHeldRow(T* __restrict__ y,
                                               const T* __restrict__ x,
                                               int64_t rows, int cols,
                                               int first_phase,
                                               int64_t x_stride,
                                               int64_t y_stride) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kGroup, kSplit>;
  const RowSlot s = HeldRowSlot<kGroup, kCluster>(rows);
  const T* x_row = x + s.row * x_stride;
  T* y_row = y + s.row * y_stride;
  const RowSpan span =
      s.valid ? SpanOf<V, kSplit>(first_phase, s.row, x_stride, cols)
              : RowSpan{};
  // This block's share of the row (all of it without a cluster): its held
  // slots count from the share's first vector and stop at its end; its
  // edge elements go to the block's threads as a block per row's do.
  const RowShare share = ShareOf<kCluster>(span);
  RowSpan held = span;
  held.body = share.end;
  const RowSpan& edge_span = share.edges;
  const int first = s.first + share.begin;
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();

  Vec<T, V> r[kVecs] = {};  // common/held_row.cuh
  LoadHeldVectors<V, kSplit, /*kEvictFirst=*/VEC_READ_ONCE_EVICT_FIRST>(x_row, held, first, s.step, r);
  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, edge_span, s.first, s.step, edges);
  const auto for_each_value = [&](auto&& f) {
    ForEachHeldValue(r, held, first, s.step, f);
    ForEachEdge<V, kEdgeSlots>(edge_span, s.first, s.step,
                               [&](int m, int) { f(edges.v[m]); });
  };
  // The stores of rows held packed: each value's exp again.
  const auto store_recomputed = [&](float max, float inv_sum) {
    KeepPacked(r);  // common/held_row.cuh: registers for two blocks per SM
    ForEachHeldVector<kVecs>(held, first, s.step, [&](int k, int idx) {
      *BodyVector<V, kSplit>(y_row, held, idx) =
          SoftmaxVector(r[k], max, inv_sum);
    });
    StoreSoftmaxEdges<V>(y_row, edges, max, inv_sum, edge_span, s.first,
                         s.step);
  };
  // SOFTMAX_EXPS_IN_PLACE: fp32 values past kKeptExps become their exps in
  // r (held vectors; a split row's edges take theirs again at the store).
  constexpr bool kExpsInPlace =
      SOFTMAX_EXPS_IN_PLACE && sizeof(T) == 4 && kVecs * V > kKeptExps;
  const auto sum_exps_in_place = [&](float max) {
    float sum = 0.f;
    ForEachHeldVector<kVecs>(held, first, s.step, [&](int k, int) {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        r[k].Set(i, FastExp(r[k].Get(i) - max));
        sum += r[k].Get(i);
      }
    });
    ForEachEdge<V, kEdgeSlots>(edge_span, s.first, s.step, [&](int m, int) {
      sum += FastExp(edges.v[m] - max);
    });
    return sum;
  };
  // The held vectors' exps times `scale` (1 / sum, or with exps against the
  // thread's own max, exp(that max - the row's) / sum).
  const auto store_exps_in_place = [&](float max, float inv_sum, float scale) {
    ForEachHeldVector<kVecs>(held, first, s.step, [&](int k, int idx) {
      Vec<T, V> out;
#pragma unroll
      for (int i = 0; i < V; ++i) out.Set(i, r[k].Get(i) * scale);
      *BodyVector<V, kSplit>(y_row, held, idx) = out;
    });
    StoreSoftmaxEdges<V>(y_row, edges, max, inv_sum, edge_span, s.first,
                         s.step);
  };
  if constexpr (kCluster == 1) {
    // The row's max, then the sum of exp(v - max): neither reduction takes
    // an exp, where merging (max, sum) pairs takes two at each step (bf16
    // block path with 2 vectors a thread: 42 -> 21 MUFU instructions, 40 ->
    // 34 registers; softmax 4096x4096 bf16 23.33 -> 22.10 us, H100,
    // 2026-12-05). A row of -inf only gets NaN from exp(-inf + inf), as
    // torch.softmax; +inf or NaN make the sum NaN.
    __shared__ float max_scratch[kWarpSize];
    __shared__ float sum_scratch[kWarpSize];
    float mine = -INFINITY;
    for_each_value([&](float v) { mine = fmaxf(mine, v); });
    const float max = RowReduce<kGroup>(mine, Max{}, max_scratch);
    if constexpr (kVecs * V <= kKeptExps) {
      // Up to kKeptExps values per thread: their exps stay in fp32
      // registers from the sum to the store, one exp per element.
      float e[kVecs][V] = {};
      float sum = 0.f;
      ForEachHeldVector<kVecs>(held, first, s.step, [&](int k, int) {
#pragma unroll
        for (int i = 0; i < V; ++i) {
          e[k][i] = FastExp(r[k].Get(i) - max);
          sum += e[k][i];
        }
      });
      ForEachEdge<V, kEdgeSlots>(edge_span, s.first, s.step, [&](int m, int) {
        sum += FastExp(edges.v[m] - max);
      });
      const float inv_sum = 1.f / RowReduce<kGroup>(sum, Sum{}, sum_scratch);
      ForEachHeldVector<kVecs>(held, first, s.step, [&](int k, int idx) {
        Vec<T, V> out;
#pragma unroll
        for (int i = 0; i < V; ++i) out.Set(i, e[k][i] * inv_sum);
        *BodyVector<V, kSplit>(y_row, held, idx) = out;
      });
      StoreSoftmaxEdges<V>(y_row, edges, max, inv_sum, edge_span, s.first,
                           s.step);
    } else if constexpr (kExpsInPlace) {
      const float inv_sum =
          1.f / RowReduce<kGroup>(sum_exps_in_place(max), Sum{}, sum_scratch);
      store_exps_in_place(max, inv_sum, inv_sum);
    } else {
      float sum = 0.f;
      for_each_value([&](float v) { sum += FastExp(v - max); });
      store_recomputed(max,
                       1.f / RowReduce<kGroup>(sum, Sum{}, sum_scratch));
    }
  } else if constexpr (SOFTMAX_CLUSTER_TWO_REDUCTIONS) {
    // The row's max through the cluster, then the sum of exps; the first
    // exchange's wait comes after the exps, hiding it.
    __shared__ float max_part;
    __shared__ float sum_part;
    __shared__ float max_scratch[kWarpSize];
    __shared__ float sum_scratch[kWarpSize];
    float mine = -INFINITY;
    for_each_value([&](float v) { mine = fmaxf(mine, v); });
    const float max = ClusterReduce<kCluster>(
        BlockReduce(mine, Max{}, max_scratch), Max{}, &max_part);
    float sum = 0.f;
    if constexpr (kExpsInPlace) {
      sum = sum_exps_in_place(max);
    } else {
      for_each_value([&](float v) { sum += FastExp(v - max); });
    }
    const float block_sum = BlockReduce(sum, Sum{}, sum_scratch);
    ClusterReduceDone();
    const float inv_sum =
        1.f / ClusterReduce<kCluster>(block_sum, Sum{}, &sum_part);
    if constexpr (kExpsInPlace) {
      store_exps_in_place(max, inv_sum, inv_sum);
    } else {
      store_recomputed(max, inv_sum);
    }
    ClusterReduceDone();
  } else {
    // A cluster's blocks merge (max, sum) pairs: one exchange through
    // distributed shared memory instead of two.
    __shared__ MaxSum cluster_part;
    __shared__ MaxSum scratch[kWarpSize];
    constexpr bool kKeptAgainstOwnMax =
        SOFTMAX_CLUSTER_KEPT_EXPS && sizeof(T) == 4 && kVecs * V > kKeptExps;
    float mine = -INFINITY;  // the thread's max, kept exps only
    MaxSum pair;
    if constexpr (kKeptAgainstOwnMax) {
      for_each_value([&](float v) { mine = fmaxf(mine, v); });
      // Without a value above -inf the thread's exps are taken against 0
      // (-inf gives 0, NaN stays NaN) and its sum counts as empty, as in
      // MaxSumOf.
      const bool empty = mine == -INFINITY;
      const float sum = sum_exps_in_place(empty ? 0.f : mine);
      pair = {mine, empty ? 0.f : sum};
    } else {
      pair = MaxSumOf(for_each_value);
    }
    const MaxSum row = ClusterReduce<kCluster>(
        BlockReduce(pair, MergeMaxSum{}, scratch), MergeMaxSum{},
        &cluster_part);
    const float inv_sum = 1.f / row.sum;
    if constexpr (kKeptAgainstOwnMax) {
      // exp(-inf - max) is 0; a row of -inf only gets NaN from exp(NaN).
      store_exps_in_place(row.max, inv_sum,
                          FastExp(mine - row.max) * inv_sum);
    } else {
      store_recomputed(row.max, inv_sum);
    }
    ClusterReduceDone();
  }
}

// Rows that fit in registers: every path of the row plan.
template <typename T, int V, int kVecs, int kGroup, bool kSplit>
__global__ void __launch_bounds__(kMaxBlockThreads,
                                  kRegisterMinBlocks<V, kVecs, kGroup, kSplit>)
    SoftmaxRegisterKernel(T* __restrict__ y, const T* __restrict__ x,
                          int64_t rows, int cols, int first_phase,
                          int64_t x_stride, int64_t y_stride) {
  SoftmaxHeldRow<T, V, kVecs, kGroup, kSplit, 1>(y, x, rows, cols, first_phase,
                                                 x_stride, y_stride);
}

// Rows longer than a block's registers: each block of a cluster holds its
// share (16-byte vectors only, as the looped clusters).
template <typename T, int V, int kVecs, bool kSplit, int kCluster>
__global__ void __cluster_dims__(kCluster, 1, 1)
    __launch_bounds__(kMaxBlockThreads)
        SoftmaxHeldClusterKernel(T* __restrict__ y, const T* __restrict__ x,
                                 int64_t rows, int cols, int first_phase,
                                 int64_t x_stride, int64_t y_stride) {
  SoftmaxHeldRow<T, V, kVecs, kWholeBlock, kSplit, kCluster>(
      y, x, rows, cols, first_phase, x_stride, y_stride);
}

// SOFTMAX_HELD_PAIR_AS_BLOCK: an fp32 held cluster of 2 blocks as one block
// of up to 1024 threads (64 registers at most).
template <typename T, int V, int kVecs, bool kSplit>
__global__ void __launch_bounds__(2 * kMaxBlockThreads)
    SoftmaxHeldPairBlockKernel(T* __restrict__ y, const T* __restrict__ x,
                               int64_t rows, int cols, int first_phase,
                               int64_t x_stride, int64_t y_stride) {
  SoftmaxHeldRow<T, V, kVecs, kWholeBlock, kSplit, 1>(
      y, x, rows, cols, first_phase, x_stride, y_stride);
}

// Rows too long for registers, or few long rows split over a cluster:
// kCluster blocks per row, each with a contiguous share of the body vectors
// (rank 0 also holds the edge elements). Pass 1: an online (max, sum) per thread, merged over
// the block, then the cluster. Pass 2 re-reads the share and writes y.
template <typename T, int V, bool kSplit, int kCluster>
__device__ __forceinline__ void SoftmaxLoopRow(T* __restrict__ y,
                                               const T* __restrict__ x,
                                               int cols, int first_phase,
                                               int64_t x_stride,
                                               int64_t y_stride) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kWholeBlock, kSplit>;
  __shared__ MaxSum scratch[kWarpSize];
  __shared__ MaxSum cluster_part;
  const int64_t row = blockIdx.x / kCluster;
  const T* x_row = x + row * x_stride;
  T* y_row = y + row * y_stride;
  const RowSpan span = SpanOf<V, kSplit>(first_phase, row, x_stride, cols);
  const RowShare share = ShareOf<kCluster>(span);
  const RowSpan& edge_span = share.edges;
  const int lane = threadIdx.x;
  const int lanes = blockDim.x;
  WaitForPreviousKernel();
  AllowNextKernelLaunch();

  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, edge_span, lane, lanes, edges);
  MaxSum mine = MergeMaxSum::Identity();
  ForEachEdge<V, kEdgeSlots>(edge_span, lane, lanes, [&](int m, int) {
    mine = AddValues(mine, {edges.v[m]});
  });
  ForEachLoopVector<V, kSplit>(
      x_row, span, share.begin, share.end, lane, lanes,
      [&](int, const Vec<T, V>& v) {
        float f[V];
#pragma unroll
        for (int i = 0; i < V; ++i) f[i] = v.Get(i);
        mine = AddValues(mine, f);
      });
  MaxSum total = BlockReduce(mine, MergeMaxSum{}, scratch);
  if constexpr (kCluster > 1) {
    total = ClusterReduce<kCluster>(total, MergeMaxSum{}, &cluster_part);
  }
  const float inv_sum = 1.f / total.sum;
  ForEachLoopVector<V, kSplit>(
      x_row, span, share.begin, share.end, lane, lanes,
      [&](int idx, const Vec<T, V>& v) {
        *BodyVector<V, kSplit>(y_row, span, idx) =
            SoftmaxVector(v, total.max, inv_sum);
      });
  StoreSoftmaxEdges<V>(y_row, edges, total.max, inv_sum, edge_span, lane,
                       lanes);
  if constexpr (kCluster > 1) ClusterReduceDone();
}

template <typename T, int V, bool kSplit>
__global__ void __launch_bounds__(kLoopBlockThreads)
    SoftmaxLoopKernel(T* __restrict__ y, const T* __restrict__ x, int cols,
                      int first_phase, int64_t x_stride, int64_t y_stride) {
  SoftmaxLoopRow<T, V, kSplit, 1>(y, x, cols, first_phase, x_stride, y_stride);
}

template <typename T, int V, bool kSplit, int kCluster>
__global__ void __cluster_dims__(kCluster, 1, 1)
    __launch_bounds__(kLoopBlockThreads)
        SoftmaxClusterKernel(T* __restrict__ y, const T* __restrict__ x,
                             int cols, int first_phase, int64_t x_stride,
                             int64_t y_stride) {
  SoftmaxLoopRow<T, V, kSplit, kCluster>(y, x, cols, first_phase, x_stride,
                                         y_stride);
}

bool DeviceRunsClusters() {
  return CachedDeviceAttribute<cudaDevAttrComputeCapabilityMajor>(0) >= 9;
}

}  // namespace

namespace {{python_name}}_cuda {

cudaError_t LaunchSoftmax(void* y, const void* x, DType dtype, int64_t rows,
                          int64_t cols, int64_t x_row_stride,
                          int64_t y_row_stride, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  const int elem = DTypeSize(dtype);
  const VectorAccess x_access{x, x_row_stride, elem};
  const VectorAccess y_access{y, y_row_stride, elem};
  RowLaunch l;
  const cudaError_t planned =
      PlanRowLaunch(rows, cols, elem, {x_access, y_access},
                    VectorAccess{nullptr, 0, elem}, &l, kSoftmaxVecs);
  if (planned != cudaSuccess) return planned;
  // Clusters only for 16-byte vectors (aligned or split rows): misaligned
  // views keep one block per row rather than instantiating more kernels.
  const bool whole_vectors = l.access.split || l.access.width * elem == 16;
  const SoftmaxPlan plan =
      PlanSoftmax(rows, l.access.vectors, CachedSmCount(),
                  CachedThreadsPerSm(), whole_vectors && DeviceRunsClusters(),
                  rows * cols * elem,
                  CachedDeviceAttribute<cudaDevAttrL2CacheSize>(50 << 20));
  if (plan.rows.blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const int row_elems = static_cast<int>(cols);  // <= 2^30: checked above

  return DispatchRowOp(
      dtype, dtype, l.access, [&](auto xt, auto, auto vc, auto split) {
        using T = typename decltype(xt)::type;
        constexpr int V = decltype(vc)::value;
        constexpr bool kSplit = decltype(split)::value;
        auto* yp = static_cast<T*>(y);
        const auto* xp = static_cast<const T*>(x);
        const dim3 grid(static_cast<unsigned>(plan.rows.blocks));
        const dim3 block(plan.rows.threads);
        const int phase = l.access.first_phase;
        return LaunchForPath<kSoftmaxVecs>(
            plan.rows.path,
            [&](auto vecs, auto group) {
              constexpr int kVecs = decltype(vecs)::value;
              constexpr int kGroup = decltype(group)::value;
              if (plan.cluster == 1) {
                return LaunchOverlapped(
                    SoftmaxRegisterKernel<T, V, kVecs, kGroup, kSplit>, grid,
                    block, stream, yp, xp, rows, row_elems, phase,
                    x_row_stride, y_row_stride);
              }
              // Held clusters: the budget's block path, 16-byte vectors.
              if constexpr (V * sizeof(T) != 16 ||
                            kGroup != kWholeBlock || kVecs != kSoftmaxVecs) {
                return cudaErrorInvalidValue;  // the plan makes none of these
              } else {
                if constexpr (SOFTMAX_HELD_PAIR_AS_BLOCK && sizeof(T) == 4) {
                  if (plan.cluster == 2) {
                    return LaunchOverlapped(
                        SoftmaxHeldPairBlockKernel<T, V, kVecs, kSplit>,
                        dim3(static_cast<unsigned>(rows)),
                        dim3(2 * plan.rows.threads), stream, yp, xp, rows,
                        row_elems, phase, x_row_stride, y_row_stride);
                  }
                }
                return DispatchCluster(plan.cluster, [&](auto cluster) {
                  return LaunchOverlapped(
                      SoftmaxHeldClusterKernel<T, V, kVecs, kSplit,
                                               decltype(cluster)::value>,
                      grid, block, stream, yp, xp, rows, row_elems, phase,
                      x_row_stride, y_row_stride);
                });
              }
            },
            [&] {
              if (plan.cluster == 1) {
                return LaunchOverlapped(SoftmaxLoopKernel<T, V, kSplit>, grid,
                                        block, stream, yp, xp, row_elems,
                                        phase, x_row_stride, y_row_stride);
              }
              if constexpr (V * sizeof(T) != 16) {
                return cudaErrorInvalidValue;  // the plan keeps these at 1
              } else {
                return DispatchCluster(plan.cluster, [&](auto cluster) {
                  return LaunchOverlapped(
                      SoftmaxClusterKernel<T, V, kSplit,
                                           decltype(cluster)::value>,
                      grid, block, stream, yp, xp, row_elems, phase,
                      x_row_stride, y_row_stride);
                });
              }
            });
      });
}

}  // namespace {{python_name}}_cuda
