// Softmax's launch plan: the library's row plan with a register budget of 8
// vectors per thread; rows longer than a block's registers, and few long
// rows, split over clusters of blocks that combine their (max, sum) through
// distributed shared memory (PlanRowsOrClusters, row_plan.h;
// cluster_reduce.cuh), each block holding its share in registers or taking
// two passes over it (the second from L1 / L2). Plain C++, so host tests
// check every plan.
#pragma once

#include <cstdint>

#include "row_plan.h"

namespace kernels_common {

// Vectors one thread may hold: softmax keeps only x, as the norms do.
constexpr int kSoftmaxVecs = kDefaultRowVecs;
using SoftmaxPlan = ClusteredRowPlan;

// Held cluster launches of at most this many blocks an SM run in one wave:
// the held block path takes 51-60 registers, so 2 blocks of 512 threads (3
// of 320) fit an SM.
constexpr int kHeldBlocksPerSm = 2;

// Rows past a block's registers are held by clusters (x read once) where
// that launch runs in one wave, or where x outgrows L2, so a looping block
// would read it twice from DRAM. Between the two a looping cluster re-reads
// x from L2 in fewer waves. H200, 2026-12-05 (results/h200-2026-12-05):
// held 32 x 151936 bf16 18.3 -> 14.4 us (256 blocks) and 2048 x 32768 fp32
// 191.7 -> 145.5 us (268 MB of x); 128 x 151936 bf16 held 33.5 us, looped
// 31.1 (1024 blocks, 39 MB).
inline bool HoldsInClusters(const SoftmaxPlan& held, int sm_count, int64_t x_bytes,
                            int64_t l2_bytes) {
  return held.cluster > 1 && held.rows.path != RowPath::kBlockLoop &&
         (held.rows.blocks <= int64_t{kHeldBlocksPerSm} * sm_count || x_bytes > l2_bytes);
}

// rows >= 1, nv >= 1 vectors per row; x_bytes: the elements of x the launch
// reads, in bytes; l2_bytes: the GPU's L2. clusters: the device runs thread
// block clusters and the launch reads whole 16-byte vectors (a split row
// counts).
inline SoftmaxPlan PlanSoftmax(int64_t rows, int64_t nv, int sm_count, int threads_per_sm,
                               bool clusters, int64_t x_bytes, int64_t l2_bytes) {
  const SoftmaxPlan held =
      PlanRowsOrClusters(rows, nv, sm_count, threads_per_sm, kSoftmaxVecs, clusters, true);
  if (HoldsInClusters(held, sm_count, x_bytes, l2_bytes)) return held;
  return PlanRowsOrClusters(rows, nv, sm_count, threads_per_sm, kSoftmaxVecs, clusters, false);
}

}  // namespace kernels_common
