// kbuild doctor's GPU probe: compiled by kbuild on first use into the cache
// dir. Prints one JSON object: the driver's CUDA version and, per GPU, its
// properties; with --bench also the measured device-to-device copy bandwidth
// (cudaMemcpy of 1 GiB, CUDA events, median of 20, bytes read + written).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int Attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  cudaDeviceGetAttribute(&value, attr, device);
  return value;
}

void PrintUuid(const cudaUUID_t& uuid) {
  const unsigned char* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  std::printf("GPU-");
  for (int i = 0; i < 16; ++i) {
    std::printf("%02x", b[i]);
    if (i == 3 || i == 5 || i == 7 || i == 9) std::printf("-");
  }
}

// Median device-to-device copy bandwidth in GB/s (1e9 bytes/s), read + write.
double CopyBandwidth(int device) {
  cudaSetDevice(device);
  const size_t bytes = size_t(1) << 30;
  void* src = nullptr;
  void* dst = nullptr;
  if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
    cudaFree(src);
    return -1;
  }
  cudaMemset(src, 1, bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);  // warm-up
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(start);
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double median_ms = (ms[9] + ms[10]) / 2;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * bytes / (median_ms * 1e-3) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const bool bench = argc > 1 && std::strcmp(argv[1], "--bench") == 0;
  int driver = 0;
  cudaDriverGetVersion(&driver);
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  std::printf("{\"driver_cuda_version\": \"%d.%d\", ", driver / 1000, (driver % 1000) / 10);
  if (err != cudaSuccess) {
    std::printf("\"error\": \"%s\", \"devices\": []}\n", cudaGetErrorString(err));
    return 0;
  }
  std::printf("\"devices\": [");
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, d);
    const int bus_bits = Attribute(cudaDevAttrGlobalMemoryBusWidth, d);
    const int mem_khz = Attribute(cudaDevAttrMemoryClockRate, d);
    const int sm_khz = Attribute(cudaDevAttrClockRate, d);  // the SMs' boost clock
    std::printf("%s{\"index\": %d, \"name\": \"%s\", \"uuid\": \"", d ? ", " : "", d, p.name);
    PrintUuid(p.uuid);
    std::printf(
        "\", \"capability\": \"%d.%d\", \"sm_count\": %d, \"l2_bytes\": %d, "
        "\"shared_mem_per_block_optin\": %zu, \"memory_bytes\": %zu, "
        "\"memory_bus_bits\": %d, \"memory_clock_khz\": %d, \"sm_clock_khz\": %d",
        p.major, p.minor, p.multiProcessorCount, p.l2CacheSize, p.sharedMemPerBlockOptin,
        p.totalGlobalMem, bus_bits, mem_khz, sm_khz);
    if (bench) std::printf(", \"copy_gbps\": %.1f", CopyBandwidth(d));
    std::printf("}");
  }
  std::printf("]}\n");
  return 0;
}
