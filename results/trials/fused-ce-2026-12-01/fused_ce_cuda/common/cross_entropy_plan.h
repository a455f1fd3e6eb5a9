// Cross-entropy forward's launch plan: which threads stream which row of
// logits. The op never holds a row (it keeps one online (max, sum) per
// thread, common/softmax_row.cuh's AddValues), so the library's register
// budget does not apply; only the mapping does:
//   nv <= 128 vectors   the library's group paths (PlanRows: 4 / 8 / 16 lanes
//                       or a warp per row, several rows per block), no barrier
//   longer rows         a block of up to kCeBlockThreads threads per row,
//                       each thread streaming every blockDim-th vector with
//                       kCeUnroll 16-byte loads in flight
//   few long rows       (rows x cluster < SMs) each row split over a thread
//                       block cluster of 2 / 4 / 8 blocks that merge their
//                       (max, sum) through distributed shared memory
// Why 256 threads a block: at 512 tokens of a 151936 vocabulary there are
// 3.9 rows per H200 SM; 256-thread blocks keep all 512 rows resident at
// once up to 40 registers a thread (6 blocks a SM), 512-thread blocks
// would need <= 32 registers (4 a SM) or leave a second, 116-row wave.
// Plain C++, so host tests check every plan.
#pragma once

#include <algorithm>
#include <cstdint>

#include "row_plan.h"

namespace kernels_common {

constexpr int kCeBlockThreads = 256;  // launch bound of the block paths
constexpr int kCeUnroll = 4;          // 16-byte loads in flight per thread
constexpr int kMaxCeCluster = 8;      // the portable cluster size

struct CrossEntropyPlan {
  RowPlan rows;  // path: a group path, or kBlockLoop (a block per row);
                 // blocks: rows * cluster on the block path
  int cluster;   // blocks per row: 1, or 2 / 4 / 8
};

// rows >= 1, nv >= 1 vectors per row. clusters: the device runs thread
// block clusters and rows are read as whole 16-byte vectors.
inline CrossEntropyPlan PlanCrossEntropy(int64_t rows, int64_t nv, int sm_count,
                                         int threads_per_sm, bool clusters) {
  if (nv <= 4 * kWarpSize) {
    // Group paths take 32 / group rows a warp; the library's budget of 4
    // keeps rows of up to 128 vectors on a warp (4 per lane).
    const RowPlan p = PlanRows(rows, nv, sm_count, threads_per_sm, 4);
    if (ShapeOf(p.path).group != kWholeBlock) return {p, 1};
  }
  const int threads = static_cast<int>(
      std::min<int64_t>(kCeBlockThreads, RoundUpToWarp(nv)));
  int cluster = 1;
  while (clusters && cluster < kMaxCeCluster && rows * cluster < sm_count &&
         nv >= int64_t{2} * cluster * threads * kCeUnroll) {
    cluster *= 2;
  }
  return {{RowPath::kBlockLoop, threads, rows * cluster}, cluster};
}

}  // namespace kernels_common
