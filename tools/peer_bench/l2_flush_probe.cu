// Does the way we flush L2 slow the timed kernel? kbuild bench flushes by
// writing a buffer of 2 x L2 (cudaMemsetAsync; the peer worker by fill_), which
// leaves up to an L2's worth of dirty lines: a timed kernel that then allocates
// lines may pay their write-back to DRAM. Every norm, ours and the peers', sits
// at 56-57% of copy bandwidth at 33 MB and near 95% at 500 MB; a fixed ~50 MB
// of extra DRAM writes would explain both. This probe times one 16-byte
// vector copy (y = x) of 4-1024 MB after three flushes: the memset, a read of
// the same buffer (clean lines), and the memset followed by the read.
// Standalone (no torch):
//   nvcc -O3 -std=c++17 -arch=sm_90a tools/peer_bench/l2_flush_probe.cu -o /tmp/flush_probe
//   /tmp/flush_probe
// Prints, per size and flush, the median of 50 event-timed copies (host kept
// ahead by a spin, so launch cost is not counted) and the share of the
// device's copy bandwidth at 1 GB with the read flush (the largest, least
// affected case).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <vector>

namespace {

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));     \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

__global__ void CopyKernel(uint4* __restrict__ y, const uint4* __restrict__ x, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = x[i];
  }
}

// Reads every line of the buffer; the sum is written only when it is
// impossible, so the loads stay and nothing in the buffer is dirtied.
__global__ void ReadKernel(const uint4* __restrict__ p, int64_t n, unsigned* sink) {
  unsigned acc = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u && sink != nullptr) *sink = acc;
}

// Keeps the GPU busy for `cycles` so the host enqueues the timed copy before
// the GPU reaches it.
__global__ void Spin(int64_t cycles) {
  const int64_t start = clock64();
  while (clock64() - start < cycles) {
  }
}

enum class Flush { kMemset, kRead, kMemsetThenRead };
const char* Name(Flush f) {
  return f == Flush::kMemset ? "memset" : f == Flush::kRead ? "read" : "memset+read";
}

struct Setup {
  int sms = 0;
  int64_t flush_bytes = 0;
  void* flush = nullptr;
  unsigned* sink = nullptr;
};

void DoFlush(const Setup& s, Flush f, cudaStream_t stream) {
  const int64_t vectors = s.flush_bytes / 16;
  if (f != Flush::kRead) CHECK(cudaMemsetAsync(s.flush, 0x5A, s.flush_bytes, stream));
  if (f != Flush::kMemset) {
    ReadKernel<<<s.sms * 8, 512, 0, stream>>>(static_cast<const uint4*>(s.flush), vectors,
                                              s.sink);
  }
}

double MedianUs(const Setup& s, Flush f, uint4* y, const uint4* x, int64_t vectors,
                cudaStream_t stream) {
  constexpr int kCalls = 50;
  std::vector<cudaEvent_t> ev(2 * kCalls);
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  const int grid = s.sms * 8;
  CopyKernel<<<grid, 512, 0, stream>>>(y, x, vectors);  // warm-up
  Spin<<<1, 1, 0, stream>>>(200000000);                  // ~100 ms: the host runs ahead
  for (int i = 0; i < kCalls; ++i) {
    DoFlush(s, f, stream);
    CHECK(cudaEventRecord(ev[2 * i], stream));
    CopyKernel<<<grid, 512, 0, stream>>>(y, x, vectors);
    CHECK(cudaEventRecord(ev[2 * i + 1], stream));
  }
  CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    us[i] = ms * 1000.0;
  }
  for (auto& e : ev) CHECK(cudaEventDestroy(e));
  std::nth_element(us.begin(), us.begin() + kCalls / 2, us.end());
  return us[kCalls / 2];
}

}  // namespace

int main() {
  Setup s;
  int device = 0, l2 = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  s.flush_bytes = std::max<int64_t>(2 * static_cast<int64_t>(l2), 1 << 20);
  CHECK(cudaMalloc(&s.flush, s.flush_bytes));
  CHECK(cudaMemset(s.flush, 0x5A, s.flush_bytes));
  CHECK(cudaMalloc(&s.sink, sizeof(unsigned)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  const int64_t max_bytes = int64_t{512} << 20;  // per tensor: copies move 2x
  void *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, max_bytes));
  CHECK(cudaMalloc(&y, max_bytes));
  CHECK(cudaMemset(x, 1, max_bytes));

  const Flush flushes[] = {Flush::kMemset, Flush::kRead, Flush::kMemsetThenRead};
  const int64_t moved_mb[] = {4, 8, 16, 33, 64, 128, 256, 512, 1024};  // read + write
  double best_gbps = 0;
  std::vector<std::vector<double>> us(std::size(moved_mb), std::vector<double>(3));
  for (size_t i = 0; i < std::size(moved_mb); ++i) {
    const int64_t vectors = (moved_mb[i] << 20) / 2 / 16;
    for (int f = 0; f < 3; ++f) {
      us[i][f] = MedianUs(s, flushes[f], static_cast<uint4*>(y), static_cast<const uint4*>(x),
                          vectors, stream);
      best_gbps = std::max(best_gbps, (moved_mb[i] << 20) / (us[i][f] * 1e3));
    }
  }
  std::printf("L2 %d MB, flush buffer %lld MB, %d SMs; %% of the best copy rate (%.0f GB/s)\n",
              l2 >> 20, static_cast<long long>(s.flush_bytes >> 20), s.sms, best_gbps);
  std::printf("%10s", "moved MB");
  for (Flush f : flushes) std::printf(" %20s", Name(f));
  std::printf("\n");
  for (size_t i = 0; i < std::size(moved_mb); ++i) {
    std::printf("%10lld", static_cast<long long>(moved_mb[i]));
    for (int f = 0; f < 3; ++f) {
      const double gbps = (moved_mb[i] << 20) / (us[i][f] * 1e3);
      std::printf(" %9.2f us (%4.0f%%)", us[i][f], 100.0 * gbps / best_gbps);
    }
    std::printf("\n");
  }
  return 0;
}
