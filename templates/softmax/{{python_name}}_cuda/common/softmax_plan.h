// Softmax's launch plan: the library's row plan with a register budget of 8
// vectors per thread, few long rows split over clusters of blocks that
// combine their (max, sum) through distributed shared memory
// (PlanRowsOrClusters, row_plan.h; cluster_reduce.cuh), each block taking two
// passes over its share (the second from L1 / L2). Plain C++, so host tests
// check every plan.
#pragma once

#include <cstdint>

#include "row_plan.h"

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
  return PlanRowsOrClusters(rows, nv, sm_count, threads_per_sm, kSoftmaxVecs, clusters);
}

}  // namespace kernels_common
