// Programmatic dependent launch (Hopper, sm_90+): a kernel launched with
// LaunchOverlapped may be scheduled while the previous kernel in the stream is
// still running, so its launch latency hides behind that kernel's tail. For
// 1-128 tokens the launch is most of the cost of a norm.
//
// The contract that keeps it correct: every kernel launched this way calls
// WaitForPreviousKernel() before its first global-memory read or write. That
// wait returns only when the previous kernel has finished and its writes are
// visible, so stream order holds for x, the weight and the output alike.
// AllowNextKernelLaunch() right after the wait lets the next overlapped
// kernel start its own launch while this one works; it never lets that kernel
// touch memory early (it waits in turn).
//
// On GPUs before sm_90 both calls compile to nothing and LaunchOverlapped is
// an ordinary launch.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "launch.cuh"

namespace kernels_common {

__device__ __forceinline__ void WaitForPreviousKernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void AllowNextKernelLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Whether the current device runs programmatic dependent launches (compute
// capability 9.0+).
inline bool DeviceOverlapsLaunches() {
  return CachedDeviceAttribute<cudaDevAttrComputeCapabilityMajor>(0) >= 9;
}

// kernel<<<grid, block, dynamic_smem_bytes, stream>>>(args...), with
// programmatic stream serialization where the device has it. Returns the
// launch status. Works under CUDA-graph capture (the dependency becomes a
// programmatic edge). Above 48 KB of dynamic shared memory the caller sets
// the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize first.
template <typename... KernelArgs, typename... Args>
cudaError_t LaunchOverlappedWithSmem(void (*kernel)(KernelArgs...), dim3 grid, dim3 block,
                                     size_t dynamic_smem_bytes, cudaStream_t stream,
                                     Args&&... args) {
  cudaLaunchAttribute overlap[1];
  overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = dynamic_smem_bytes;
  config.stream = stream;
  config.attrs = overlap;
  config.numAttrs = DeviceOverlapsLaunches() ? 1 : 0;
  const cudaError_t launched =
      cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  // As <<<>>> followed by cudaGetLastError(): report the launch and clear the
  // runtime's last-error slot, so no later, unrelated launch check sees it.
  const cudaError_t last = cudaGetLastError();
  return launched != cudaSuccess ? launched : last;
}

// The same without dynamic shared memory.
template <typename... KernelArgs, typename... Args>
cudaError_t LaunchOverlapped(void (*kernel)(KernelArgs...), dim3 grid,
                             dim3 block, cudaStream_t stream, Args&&... args) {
  return LaunchOverlappedWithSmem(kernel, grid, block, 0, stream, std::forward<Args>(args)...);
}

}  // namespace kernels_common
