// Softmax's launch plan: the library's row plan with a register budget of 8
// vectors per thread; few long rows (and, with SOFTMAX_HELD_CLUSTERS=1,
// rows longer than a block's registers) split over clusters of blocks that
// combine their (max, sum) through distributed shared memory
// (PlanRowsOrClusters, row_plan.h; cluster_reduce.cuh), each block holding
// its share in registers or taking two passes over it (the second from L1
// / L2). Plain C++, so host tests check every plan.
#pragma once

#include <cstdint>

#include "row_plan.h"

// Held clusters (kbuild --define SOFTMAX_HELD_CLUSTERS=1): rows longer
// than a block's registers (fp32 rows of 16385-131072 elements, bf16 / fp16
// of 32769-262144) split over clusters whose blocks each hold their share
// in registers, x read once. 0 (the default): such rows loop over x twice,
// a block per row, or a cluster of looping blocks when they are fewer than
// the SMs.
#ifndef SOFTMAX_HELD_CLUSTERS
#define SOFTMAX_HELD_CLUSTERS 0
#endif

namespace kernels_common {

// Vectors one thread may hold: softmax keeps only x, as the norms do.
constexpr int kSoftmaxVecs = kDefaultRowVecs;
using SoftmaxPlan = ClusteredRowPlan;

// The library's plan for few long rows (PlanRowsOrClusters, row_plan.h) with
// softmax's budget. rows >= 1, nv >= 1 vectors per row. clusters: the device
// runs thread block clusters and the launch reads whole 16-byte vectors (a
// split row counts).
inline SoftmaxPlan PlanSoftmax(int64_t rows, int64_t nv, int sm_count,
                               int threads_per_sm, bool clusters) {
  return PlanRowsOrClusters(rows, nv, sm_count, threads_per_sm, kSoftmaxVecs, clusters,
                            SOFTMAX_HELD_CLUSTERS != 0);
}

}  // namespace kernels_common
