// Kernels that end badly on purpose (see faults.h). One thread each: they
// move no bytes that matter, they only have to fault or never return.
#include <cstdint>

#include "faults.h"

namespace bad_kernels {

namespace {

// Zero for the life of the module: no kernel or host code writes it.
__device__ int never_set = 0;

__global__ void WriteThroughKernel(float* target) { *target = 1.f; }

__global__ void SpinUntilSetKernel() {
  // A volatile read is a side effect: the compiler must reload the flag on
  // every iteration and may neither hoist the read nor delete the loop.
  while (*static_cast<volatile int*>(&never_set) == 0) {
  }
}

}  // namespace

cudaError_t LaunchCrashIllegalAddress(cudaStream_t stream) {
  // 4 KiB past null: never mapped for a CUDA context. Passed as an argument
  // so the device compiler cannot see a constant null store and turn it into
  // a trap (which would end in a different error).
  float* target = reinterpret_cast<float*>(uintptr_t{4096});
  WriteThroughKernel<<<1, 1, 0, stream>>>(target);
  return cudaGetLastError();
}

cudaError_t LaunchHang(cudaStream_t stream) {
  SpinUntilSetKernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace bad_kernels
