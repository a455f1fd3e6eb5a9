// Softmax's launch plan: the library's row plan (PlanRows, row_plan.h) with a
// register budget of 8 vectors per thread, except for few long rows. A row
// that gets a block of its own leaves SMs idle when there are fewer rows than
// SMs (32 x 151936 bf16: 32 of 132 H200 SMs); such a row is split over a
// cluster of 2, 4 or 8 blocks (sm_90 thread block clusters) that combine
// their (max, sum) through distributed shared memory (cluster_reduce.cuh),
// each block taking two passes over its share (the second from L1 / L2).
// Plain C++, so host tests check every plan.
#pragma once

#include <cstdint>

#include "row_plan.h"

namespace kernels_common {

// Vectors one thread may hold: softmax keeps only x, as the norms do.
constexpr int kSoftmaxVecs = kDefaultRowVecs;
constexpr int kMaxSoftmaxCluster = 8;  // the portable cluster size

struct SoftmaxPlan {
  RowPlan rows;  // blocks: rows * cluster on the cluster path
  int cluster;   // blocks per row: 1, or 2 / 4 / 8 on the cluster path
};

// rows >= 1, nv >= 1 vectors per row. clusters: the device runs thread block
// clusters and the launch reads whole 16-byte vectors (a split row counts).
// A row is split while the GPU has fewer blocks than SMs and each block
// keeps at least kLoopBlockThreads vectors (one per thread) of it.
inline SoftmaxPlan PlanSoftmax(int64_t rows, int64_t nv, int sm_count,
                               int threads_per_sm, bool clusters) {
  int cluster = 1;
  while (clusters && cluster < kMaxSoftmaxCluster && rows * cluster < sm_count &&
         nv >= int64_t{2} * cluster * kLoopBlockThreads) {
    cluster *= 2;
  }
  if (cluster == 1) {
    return {PlanRows(rows, nv, sm_count, threads_per_sm, kSoftmaxVecs), 1};
  }
  return {{RowPath::kBlockLoop, kLoopBlockThreads, rows * cluster}, cluster};
}

}  // namespace kernels_common
