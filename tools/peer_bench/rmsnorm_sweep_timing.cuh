// The timing regimes of rmsnorm_launch_sweep.cu, one function each, so a
// launch shape is compared in the regime a number came from:
//   SyncFlushedUs  a 256 MB memset, then the launch alone between events,
//                  synchronized every time (the 2026-11-30 sweeps);
//   QueuedUs       as `kbuild bench` times a call (tools/harness/src/timing.cpp,
//                  kbuild/harness/host_ahead.h): per call an L2 flush of 2x L2,
//                  start event, launch, stop event, 32 calls enqueued behind one
//                  GPU spin so the host stays ahead; the flush written by a
//                  kernel as the peer worker's fill_ does, or by cudaMemsetAsync
//                  as the C++ harness does;
//   GraphUsPerCall per call of 20 launches replayed from one CUDA graph.
// Standalone CUDA (no torch, no harness library): the sweep is one nvcc call.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace sweep {

inline void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

using Launch = std::function<void(cudaStream_t)>;
enum class Flush { kFill, kMemset };

struct FlushBuffers {
  void* sync = nullptr;  // 256 MB: the 2026-11-30 sweeps' flush
  size_t sync_bytes = size_t{256} << 20;
  void* l2 = nullptr;  // max(2 x L2, 1 MiB): the harness's flush
  size_t l2_bytes = 0;
};

inline FlushBuffers AllocateFlushBuffers() {
  FlushBuffers f;
  int l2 = 0;
  Check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2 size");
  f.l2_bytes = std::max<size_t>(2 * static_cast<size_t>(l2), size_t{1} << 20);
  Check(cudaMalloc(&f.sync, f.sync_bytes), "malloc sync flush");
  Check(cudaMalloc(&f.l2, f.l2_bytes), "malloc L2 flush");
  return f;
}

// Keeps the GPU busy for `ns` of its global timer while the host enqueues
// (what the harness's spin kernel does, tools/harness/src/utility_kernels.cpp).
__global__ void SpinKernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// 16-byte stores over the flush buffer, as torch's fill_ writes it.
__global__ void FillKernel(uint4* p, size_t n) {
  const uint4 v = make_uint4(0x5A5A5A5A, 0x5A5A5A5A, 0x5A5A5A5A, 0x5A5A5A5A);
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    p[i] = v;
  }
}

inline void FlushL2(const FlushBuffers& f, Flush kind, cudaStream_t s) {
  if (kind == Flush::kMemset) {
    cudaMemsetAsync(f.l2, 0x5A, f.l2_bytes, s);
  } else {
    FillKernel<<<1024, 256, 0, s>>>(static_cast<uint4*>(f.l2), f.l2_bytes / sizeof(uint4));
  }
}

inline double Median(std::vector<float> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct Events {
  explicit Events(int n) : e(n) {
    for (cudaEvent_t& x : e) cudaEventCreate(&x);
  }
  ~Events() {
    for (cudaEvent_t x : e) cudaEventDestroy(x);
  }
  float Us(int from, int to) const {
    float ms = 0;
    cudaEventElapsedTime(&ms, e[from], e[to]);
    return ms * 1000.f;
  }
  std::vector<cudaEvent_t> e;
};

inline double SyncFlushedUs(const FlushBuffers& f, const Launch& launch, cudaStream_t s) {
  Events ev(2);
  std::vector<float> us;
  for (int i = 0; i < 45; ++i) {
    cudaMemsetAsync(f.sync, i & 0xff, f.sync_bytes, s);
    cudaEventRecord(ev.e[0], s);
    launch(s);
    cudaEventRecord(ev.e[1], s);
    cudaEventSynchronize(ev.e[1]);
    if (i >= 5) us.push_back(ev.Us(0, 1));
  }
  Check(cudaGetLastError(), "sync-flushed launches");
  return Median(us);
}

using Clock = std::chrono::steady_clock;
inline double UsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

struct Queued {
  double us;
  bool host_behind;  // a call was enqueued after the GPU reached its start event
};

// Median of 3 chunks of 32 calls: a pilot gives the host time per iteration,
// each chunk goes behind a spin of 1.5 x that x 32 + 50 us (at most 500 ms),
// and every call is checked against the GPU's clock, as timing.cpp does.
inline Queued QueuedUs(const FlushBuffers& f, Flush flush, const Launch& launch, cudaStream_t s) {
  constexpr int kChunk = 32, kCalls = 3 * kChunk;
  Events ev(2 * kCalls + 1);
  const int began = 2 * kCalls;
  std::vector<double> enqueued(kCalls);
  Clock::time_point origin = Clock::now();
  auto iteration = [&](int i) {
    FlushL2(f, flush, s);
    cudaEventRecord(ev.e[2 * i], s);
    launch(s);
    enqueued[i] = UsSince(origin);
    cudaEventRecord(ev.e[2 * i + 1], s);
  };
  SpinKernel<<<1, 1, 0, s>>>(kChunk * 100'000ull);  // the pilot's: 100 us per call
  const Clock::time_point pilot = Clock::now();
  for (int i = 0; i < kChunk; ++i) iteration(i);
  const double host_us = UsSince(pilot) / kChunk;
  Check(cudaStreamSynchronize(s), "pilot");
  Queued q{0, false};
  for (int first = 0; first < kCalls; first += kChunk) {
    const double lead_us = std::min(1.5 * kChunk * host_us + 50, 500'000.0);
    origin = Clock::now();  // before the GPU's origin: a late call never hides
    cudaEventRecord(ev.e[began], s);
    SpinKernel<<<1, 1, 0, s>>>(static_cast<unsigned long long>(lead_us * 1000));
    for (int i = first; i < first + kChunk; ++i) iteration(i);
    Check(cudaStreamSynchronize(s), "queued chunk");
    for (int i = first; i < first + kChunk; ++i) {
      q.host_behind |= enqueued[i] > ev.Us(began, 2 * i);
    }
  }
  std::vector<float> us;
  for (int i = 0; i < kCalls; ++i) us.push_back(ev.Us(2 * i, 2 * i + 1));
  q.us = Median(us);
  return q;
}

inline double GraphUsPerCall(const Launch& launch, cudaStream_t s) {
  constexpr int kCalls = 20;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  Check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "capture");
  for (int i = 0; i < kCalls; ++i) launch(s);
  Check(cudaStreamEndCapture(s, &graph), "end capture");
  Check(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  Events ev(2);
  std::vector<float> us;
  for (int i = 0; i < 25; ++i) {
    cudaEventRecord(ev.e[0], s);
    cudaGraphLaunch(exec, s);
    cudaEventRecord(ev.e[1], s);
    cudaEventSynchronize(ev.e[1]);
    if (i >= 5) us.push_back(ev.Us(0, 1));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return Median(us) / kCalls;
}

}  // namespace sweep
