// The library's launch planner for ops over rows (norms, softmax, any op that
// reduces along the last dimension): which threads own which row, from the
// row count, the number of vectors per row and the op's register budget (how
// many 16-byte vectors of a row one thread may hold: 2, 4 or 8; an op that
// keeps more per element, e.g. two inputs or a running state, takes fewer).
// Plain C++ (no CUDA headers), so host tests can check every plan;
// launch.cuh turns a plan into a kernel instantiation.
//
// A row of `hidden` elements is nv vectors of V elements (V = 16 / sizeof(T)
// when aligned: 8 for bf16 / fp16, 4 for fp32). The threads of a row, a group
// of lanes or a whole block, hold its vectors in registers, so x is read
// once; only rows longer than the registers hold loop over x twice:
//   nv <= 32        4 / 8 / 16 / 32 lanes per row, one vector each: 8 / 4 / 2
//                   / 1 rows per warp, 1-8 warps per block, no barrier (or,
//                   with short_row_vecs 2, half the lanes with two vectors
//                   each from nv > 4 on: twice the bytes in flight a thread)
//   nv <= 128       a warp per row, 2 or 4 vectors per lane (4: budget >= 4)
//   nv <= 512, few  a block per row, nv threads, 1 vector each (when rows x
//   rows            nv threads fit on the GPU at once: 528 rows of 4096 bf16
//                   on the H200)
//   nv <= 1024      a block per row, nv / 2 threads, 2 vectors each
//   nv <= 512 x B   a block per row, nv / B threads, B vectors each (B: the
//                   budget, 4 or 8)
//   larger          a block per row, 512 threads, looping over the row: two
//                   passes for an op that writes the row back (re-read from
//                   L2, not DRAM); one for an op that reduces a row to a
//                   value (logsumexp, cross entropy, row sums), which holds
//                   nothing and may plan with any budget
// Rows longer than one block's registers, and few long rows, may instead be
// split over clusters of blocks: PlanRowsOrClusters, below.
#pragma once

#include <cstdint>

namespace kernels_common {

constexpr int kWarpSize = 32;
constexpr int kWholeBlock = 0;         // RowShape::group of a block-per-row path
constexpr int kMaxBlockThreads = 512;  // launch bound of the register paths
constexpr int kLoopBlockThreads = 512;
constexpr int kMaxGroupWarps = 8;  // 256-thread blocks for group paths
// The register budget of the norm ops: 8 vectors per thread.
constexpr int kDefaultRowVecs = 8;
// Longest row (in vectors) held in registers with a budget of `max_vecs`
// vectors per thread.
constexpr int64_t MaxRegisterRowVecs(int max_vecs) {
  return int64_t{max_vecs} * kMaxBlockThreads;
}
constexpr int64_t kMaxRegisterRowVecs = MaxRegisterRowVecs(kDefaultRowVecs);

enum class RowPath {
  kLanes4,    // 4 lanes per row, 1 vector each: 8 rows per warp
  kLanes8,    // 8 lanes per row, 1 vector each: 4 rows per warp
  kLanes16,   // 16 lanes per row, 1 vector each: 2 rows per warp
  kLanes4x2,  // 4 lanes per row, 2 vectors each: 8 rows per warp
  kLanes8x2,  // 8 lanes per row, 2 vectors each: 4 rows per warp
  kLanes16x2,  // 16 lanes per row, 2 vectors each: 2 rows per warp
  kWarp1,     // a warp per row, 1 vector per lane
  kWarp2,     // a warp per row, 2 vectors per lane
  kWarp4,     // a warp per row, 4 vectors per lane
  kBlock1,    // a block per row, 1 vector per thread
  kBlock2,    // a block per row, 2 vectors per thread
  kBlock4,    // a block per row, 4 vectors per thread (a budget of 4)
  kBlock8,    // a block per row, 8 vectors per thread (a budget of 8)
  kBlockLoop  // a block per row, two passes over x (too long for registers)
};

// Lanes per row (kWholeBlock: the block's threads) and vectors each thread
// holds (0: the two-pass loop): the kernel's kGroup and kVecs.
struct RowShape {
  int group;
  int vecs;
};

constexpr RowShape ShapeOf(RowPath path) {
  switch (path) {
    case RowPath::kLanes4:
      return {4, 1};
    case RowPath::kLanes8:
      return {8, 1};
    case RowPath::kLanes16:
      return {16, 1};
    case RowPath::kLanes4x2:
      return {4, 2};
    case RowPath::kLanes8x2:
      return {8, 2};
    case RowPath::kLanes16x2:
      return {16, 2};
    case RowPath::kWarp1:
      return {kWarpSize, 1};
    case RowPath::kWarp2:
      return {kWarpSize, 2};
    case RowPath::kWarp4:
      return {kWarpSize, 4};
    case RowPath::kBlock1:
      return {kWholeBlock, 1};
    case RowPath::kBlock2:
      return {kWholeBlock, 2};
    case RowPath::kBlock4:
      return {kWholeBlock, 4};
    case RowPath::kBlock8:
      return {kWholeBlock, 8};
    case RowPath::kBlockLoop:
      return {kWholeBlock, 0};
  }
  return {kWholeBlock, 0};
}

// The block-per-row path whose threads hold `vecs` (2, 4 or 8) vectors.
constexpr RowPath BlockPathHolding(int vecs) {
  return vecs >= 8 ? RowPath::kBlock8 : vecs >= 4 ? RowPath::kBlock4 : RowPath::kBlock2;
}

struct RowPlan {
  RowPath path;
  int threads;     // per block, a multiple of 32
  int64_t blocks;  // the caller refuses more than 2^31 - 1
};

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int RoundUpToWarp(int64_t threads) {
  return static_cast<int>(CeilDiv(threads, kWarpSize) * kWarpSize);
}

// Warps per block for group-per-row paths: as many rows per block as keep
// every SM busy, fewer when the row count is small. max_warps: a power of
// two, at most kMaxBlockThreads / 32 (an op's tuned value; kMaxGroupWarps
// by default).
inline int WarpsPerBlockForRows(int64_t rows, int rows_per_warp, int sm_count,
                                int max_warps = kMaxGroupWarps) {
  for (int warps = max_warps; warps > 1; warps /= 2) {
    if (CeilDiv(rows, int64_t{warps} * rows_per_warp) >= sm_count) return warps;
  }
  return 1;
}

// A path whose groups of lanes never span warps: 32 / group rows per warp.
inline RowPlan GroupPlan(RowPath path, int64_t rows, int sm_count, int max_warps = kMaxGroupWarps) {
  const int rows_per_warp = kWarpSize / ShapeOf(path).group;
  const int warps = WarpsPerBlockForRows(rows, rows_per_warp, sm_count, max_warps);
  return {path, warps * kWarpSize, CeilDiv(rows, int64_t{warps} * rows_per_warp)};
}

// rows >= 1 and nv >= 1. sm_count and threads_per_sm describe the GPU
// (CachedSmCount, CachedThreadsPerSm in launch.cuh); max_vecs is the op's
// register budget: 2, 4 or 8 vectors per thread (launch with the same value
// as LaunchForPath's kMaxVecs); max_group_warps bounds the blocks of the
// lanes / warp per row paths (WarpsPerBlockForRows); short_row_vecs (1 or 2,
// launch with the same value as LaunchForPath's kShortRowVecs) the vectors
// a lane holds on the lanes-per-row paths.
inline RowPlan PlanRows(int64_t rows, int64_t nv, int sm_count, int threads_per_sm,
                        int max_vecs = kDefaultRowVecs, int max_group_warps = kMaxGroupWarps,
                        int short_row_vecs = 1) {
  const auto group = [&](RowPath path) { return GroupPlan(path, rows, sm_count, max_group_warps); };
  // Short rows, up to one vector per lane of a warp (256 bf16 / fp16 or 128
  // fp32 elements when aligned): the smallest group of lanes that gives each
  // vector its own lane, several rows per warp, no shared memory, no barrier.
  // A warp per row would idle 32 - nv lanes: half of them at 128 bf16
  // elements, three quarters at 64 (H200, 2026-12-01, bf16 [27030*24, 128]:
  // 42% of copy bandwidth that way, 92% with 16 lanes per row).
  // Two vectors a lane hold twice the bytes in flight per thread at the same
  // occupancy, as torch.compile's and Liger's short-row kernels do (ncu,
  // H200, 2026-12-02: their 8 lanes x 2 vectors per row of 128 reached 82-84%
  // of DRAM peak, our 16 x 1 80%). A tune knob until measured.
  if (short_row_vecs == 2 && nv > 4 && nv <= kWarpSize) {
    if (nv <= 8) return group(RowPath::kLanes4x2);
    if (nv <= 16) return group(RowPath::kLanes8x2);
    return group(RowPath::kLanes16x2);
  }
  if (nv <= 4) return group(RowPath::kLanes4);
  if (nv <= 8) return group(RowPath::kLanes8);
  if (nv <= 16) return group(RowPath::kLanes16);
  if (nv <= kWarpSize) return group(RowPath::kWarp1);
  // Up to 4 vectors per lane a warp still holds the row without a barrier;
  // a block per row would idle most of its threads.
  if (nv <= 2 * kWarpSize) return group(RowPath::kWarp2);
  if (nv <= 4 * kWarpSize && max_vecs >= 4) {
    return group(RowPath::kWarp4);
  }
  // Few rows: if the GPU holds every thread at once even with one vector per
  // thread, twice the threads per row halves each thread's share of the
  // load -> reduce -> store chain, which is all a launch this small costs
  // (H200, 2026-11-30: 1x4096 bf16 1.64 vs 1.89 us per call in a CUDA graph,
  // 512x4096 6.4 vs 6.7 us flushed; from 1024x4096 up, two waves make it
  // slower, 9.3 vs 8.4 us).
  const int64_t one_vector_threads = RoundUpToWarp(nv);
  if (nv <= kMaxBlockThreads && rows * one_vector_threads <= int64_t{sm_count} * threads_per_sm) {
    return {RowPath::kBlock1, static_cast<int>(one_vector_threads), rows};
  }
  if (nv <= 2 * kMaxBlockThreads) {
    return {RowPath::kBlock2, RoundUpToWarp(CeilDiv(nv, 2)), rows};
  }
  if (max_vecs >= 8 && nv <= MaxRegisterRowVecs(8)) {
    return {RowPath::kBlock8, RoundUpToWarp(CeilDiv(nv, 8)), rows};
  }
  if (max_vecs == 4 && nv <= MaxRegisterRowVecs(4)) {
    return {RowPath::kBlock4, RoundUpToWarp(CeilDiv(nv, 4)), rows};
  }
  return {RowPath::kBlockLoop, kLoopBlockThreads, rows};
}

// Clusters of blocks (sm_90 thread block clusters; cluster_reduce.cuh
// combines the blocks' partial results), in this order:
// - held: a row longer than one block's registers hold (nv >
//   MaxRegisterRowVecs(max_vecs): fp32 rows of 16385-131072 elements with a
//   budget of 8) but within kMaxRowCluster blocks' is split over the
//   smallest cluster of 2, 4 or 8 blocks whose shares fit (larger while
//   the GPU has fewer blocks than SMs), each block holding its share in
//   registers on the budget's block path, so x is read once (softmax 2048
//   x 32768 fp32 on the H200: 87.5% of copy held, 66% looping over the
//   row, which reads it twice; 2026-12-05); an op may hold only where
//   that wins (softmax_plan.h);
// - looped: few long rows (a row that gets a block of its own leaves SMs
//   idle when there are fewer rows than SMs) are split over 2, 4 or 8
//   blocks while the GPU has fewer blocks than SMs and each block keeps at
//   least kLoopBlockThreads vectors of the row (one per thread), each
//   block looping over its share;
// - otherwise the row plan of PlanRows, cluster 1.
constexpr int kMaxRowCluster = 8;  // the portable cluster size

struct ClusteredRowPlan {
  RowPlan rows;  // blocks: rows * cluster; path: kBlockLoop, or the held
                 // block path (kBlock2 / 4 / 8) when each block holds its share
  int cluster;   // blocks per row: 1, or 2 / 4 / 8
};

// clusters: the device runs thread block clusters and the launch can use
// them (e.g. it reads whole 16-byte vectors); max_vecs as for PlanRows;
// held: the op has a held cluster kernel (else long rows loop).
inline ClusteredRowPlan PlanRowsOrClusters(int64_t rows, int64_t nv, int sm_count,
                                           int threads_per_sm, int max_vecs, bool clusters,
                                           bool held = false) {
  const int64_t block_vecs = MaxRegisterRowVecs(max_vecs);
  if (clusters && held && nv > block_vecs && nv <= kMaxRowCluster * block_vecs) {
    int cluster = 2;  // the smallest that fits, doubled while SMs would idle
    while (cluster < kMaxRowCluster &&
           (CeilDiv(nv, cluster) > block_vecs || rows * cluster < sm_count)) {
      cluster *= 2;
    }
    const RowPath path = BlockPathHolding(max_vecs);
    const int64_t share = CeilDiv(nv, cluster);
    return {{path, RoundUpToWarp(CeilDiv(share, ShapeOf(path).vecs)), rows * cluster}, cluster};
  }
  int cluster = 1;
  while (clusters && cluster < kMaxRowCluster && rows * cluster < sm_count &&
         nv >= int64_t{2} * cluster * kLoopBlockThreads) {
    cluster *= 2;
  }
  if (cluster == 1) return {PlanRows(rows, nv, sm_count, threads_per_sm, max_vecs), 1};
  return {{RowPath::kBlockLoop, kLoopBlockThreads, rows * cluster}, cluster};
}

}  // namespace kernels_common
