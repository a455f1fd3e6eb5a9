// One row shared by the blocks of a thread block cluster (sm_90+): each block
// reduces its part of the row (BlockReduce, reduce.cuh), then ClusterReduce
// combines the blocks' results through distributed shared memory, so a few
// long rows can spread over many SMs instead of one block each.
//
// The contract (the caller's part):
// - the kernel is launched with clusters of kCluster blocks (a
//   __cluster_dims__(kCluster, 1, 1) kernel: the grid a multiple of kCluster)
//   and every thread of every block of the cluster calls ClusterReduce, with
//   its block's result (BlockReduce gives it to every thread);
// - `part` is one value of the reduced type in the block's shared memory,
//   written by ClusterReduce only;
// - every thread calls ClusterReduceDone() after ClusterReduce and before
//   it exits: the other blocks read `part` until they pass ClusterReduce,
//   and a block's shared memory is gone once it exits. Work placed between
//   the two calls (the second pass over a row) hides that wait.
// Every thread of the cluster gets the same result: each block merges the
// parts in rank order.
#pragma once

#include <cooperative_groups.h>

namespace kernels_common {

template <int kCluster, typename T, typename Op>
__device__ __forceinline__ T ClusterReduce(T block_value, Op op, T* part) {
  static_assert(kCluster >= 2 && kCluster <= 8,
                "2-8 blocks: the portable cluster sizes");
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) *part = block_value;
  cluster.sync();  // release the parts, acquire the others'
  T total = Op::Identity();
#pragma unroll
  for (int rank = 0; rank < kCluster; ++rank) {
    total = op(total, *cluster.map_shared_rank(part, rank));
  }
  // Arrive now (this block is done reading the others' parts);
  // ClusterReduceDone waits for the rest.
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  return total;
}

__device__ __forceinline__ void ClusterReduceDone() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

}  // namespace kernels_common
