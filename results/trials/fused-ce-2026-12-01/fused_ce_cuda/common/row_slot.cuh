// Which row of a RowPlan (row_plan.h) this thread works on, and which of its
// vectors it owns: the threads of a row (kGroup lanes, or the whole block
// when kGroup == kWholeBlock) own vectors first, first + step, first + 2 step
// ... of it. Contract: launch with the plan's grid and block; every thread
// gets a slot, and the threads of a partial last group get valid == false
// and must stay alive (with an identity value) for the row's shuffles
// (reduce.cuh).
#pragma once

#include <cstdint>

#include "row_plan.h"  // kWholeBlock

namespace kernels_common {

// Which row this thread works on and which vectors of it it owns. Threads of
// a partial last group stay alive (valid == false) for the shuffles.
struct RowSlot {
  int64_t row;
  int first;
  int step;
  bool valid;
};

template <int kGroup>
__device__ __forceinline__ RowSlot CurrentRowSlot(int64_t rows) {
  if constexpr (kGroup == kWholeBlock) {
    return {static_cast<int64_t>(blockIdx.x), static_cast<int>(threadIdx.x),
            static_cast<int>(blockDim.x), true};
  } else {
    const int64_t row =
        (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kGroup;
    return {row, static_cast<int>(threadIdx.x % kGroup), kGroup, row < rows};
  }
}

}  // namespace kernels_common
