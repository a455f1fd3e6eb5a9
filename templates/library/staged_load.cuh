// Loads that stay where they are issued: cp.async copies global memory into
// shared memory without writing a register, so ptxas cannot sink them. A
// load into registers issued early (a per-column weight, a modulation row)
// is often moved by ptxas past the reduction that waits on x; it then
// starts one memory round trip late (find the LDG after the FFMAs with
// `cuobjdump -sass`). Staging it costs a shared-memory slot and a read.
//
// Contract: a thread copies into slots only it reads (StageSlot: one per
// thread), then CommitCopies(); WaitForCopies() before it reads them. No
// barrier is needed, as no other thread reads the slot. Source and slot are
// aligned to the copied size (4, 8 or 16 bytes a piece); sm_80+.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vec.cuh"

namespace kernels_common {

// Whether CopyToShared takes a Vec<T, V>: cp.async copies 4, 8 or 16 bytes a
// piece, so narrower vectors stay loads into registers.
template <typename T, int V>
constexpr bool kCopiesToShared = sizeof(Vec<T, V>) % 4 == 0;

// Dynamic shared memory a launch gets without raising the kernel's
// cudaFuncAttributeMaxDynamicSharedMemorySize: staged launches above it take
// their unstaged kernel instead.
constexpr size_t kDefaultDynamicSmemBytes = 48 * 1024;

// Copies one vector from global memory into `slot` in shared memory;
// kEvictFirst (for a source no thread reads again): its L2 lines go first,
// as vec.cuh's read-once loads.
template <typename T, int V, bool kEvictFirst = false>
__device__ __forceinline__ void CopyToShared(Vec<T, V>* slot, const T* source) {
  constexpr int kChunk = sizeof(Vec<T, V>) < 16 ? sizeof(Vec<T, V>) : 16;
  static_assert(kChunk == 4 || kChunk == 8 || kChunk == 16, "cp.async copies 4, 8 or 16 bytes");
  const auto to = static_cast<uint32_t>(__cvta_generic_to_shared(slot));
  const auto* from = reinterpret_cast<const char*>(source);
#pragma unroll
  for (int c = 0; c < static_cast<int>(sizeof(Vec<T, V>)) / kChunk; ++c) {
    if constexpr (kEvictFirst) {
      asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], %2, %3;" ::"r"(
                       to + c * kChunk),
                   "l"(from + c * kChunk), "n"(kChunk), "l"(ReadOncePolicy())
                   : "memory");
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to + c * kChunk),
                   "l"(from + c * kChunk), "n"(kChunk)
                   : "memory");
    }
  }
}

// Closes this thread's group of copies issued so far.
__device__ __forceinline__ void CommitCopies() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

// Returns when every copy this thread committed has landed.
__device__ __forceinline__ void WaitForCopies() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// Slot `index` of this thread in an array of slots laid out (index,
// thread): neighbouring threads fill neighbouring vectors (no bank
// conflicts for 16-byte vectors).
template <typename T, int V>
__device__ __forceinline__ Vec<T, V>* StageSlot(void* slots, int index) {
  return static_cast<Vec<T, V>*>(slots) + index * blockDim.x + threadIdx.x;
}

}  // namespace kernels_common
