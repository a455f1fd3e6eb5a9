#include "huge_case_memory.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include <cstdio>

namespace kb::harness {

namespace {

std::string Gigabytes(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

std::string MemorySkipReason(std::int64_t needed, std::int64_t free_bytes) {
  if (free_bytes >= needed) return "";
  return "this case needs about " + Gigabytes(needed) +
         " of device memory (the op's tensors and float64 reference copies), " +
         Gigabytes(free_bytes) +
         " is free\nhint: run it on a GPU with more memory (an H200 has 141 GB)";
}

std::string HugeCaseSkipReason(c10::Device device, const Case& c) {
  if (!device.is_cuda()) return "";
  c10::cuda::OptionalCUDAGuard guard(device.has_index() ? std::optional<c10::Device>(device)
                                                        : std::nullopt);
  c10::cuda::CUDACachingAllocator::emptyCache();
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();  // clear it: the case then runs and reports what fails
    return "";
  }
  return MemorySkipReason(HugeCaseDeviceBytes(c), static_cast<std::int64_t>(free_bytes));
}

}  // namespace kb::harness
