#include <cuda_runtime_api.h>

#include "kbuild/harness/stats.h"
#include "kbuild/harness/timing.h"

namespace kb::harness {

double MeasureCopyBandwidthGbps() {
  // 1 GiB each way is ~17x the H200's L2, so the copy streams from HBM.
  constexpr std::size_t kBytes = std::size_t{1} << 30;
  constexpr int kCopies = 20;
  void* src = nullptr;
  void* dst = nullptr;
  if (cudaMalloc(&src, kBytes) != cudaSuccess || cudaMalloc(&dst, kBytes) != cudaSuccess) {
    cudaFree(src);
    cudaGetLastError();  // a failed allocation is not an error of the op
    return 0;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> gbps;
  for (int i = 0; i < kCopies + 3; ++i) {
    cudaEventRecord(start);
    cudaMemcpyAsync(dst, src, kBytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (i >= 3 && ms > 0) gbps.push_back(2.0 * kBytes / (ms * 1e-3) / 1e9);  // 3 warm-ups
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(src);
  cudaFree(dst);
  return Summarize(gbps).median;
}

GpuClockFacts CurrentGpuClockFacts() {
  GpuClockFacts facts;
  int device = 0, clock_khz = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&facts.major, cudaDevAttrComputeCapabilityMajor, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&facts.minor, cudaDevAttrComputeCapabilityMinor, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&facts.sm_count, cudaDevAttrMultiProcessorCount, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device) != cudaSuccess) {
    cudaGetLastError();  // a failed query is not an error of the op
    return {};
  }
  facts.clock_khz = clock_khz;
  int memory_khz = 0;  // optional: without them only the copy bandwidth bounds bytes
  if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&facts.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) ==
          cudaSuccess) {
    facts.memory_clock_khz = memory_khz;
  } else {
    facts.memory_bus_bits = 0;
    cudaGetLastError();
  }
  return facts;
}

}  // namespace kb::harness
