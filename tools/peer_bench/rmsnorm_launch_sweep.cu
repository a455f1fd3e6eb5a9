// Times the rmsnorm template's register-resident kernel under every launch
// shape it can take, for the Qwen3 / LTX hidden sizes, so PlanLongRows is
// chosen from measurements instead of guesses. Standalone (no torch): build
// and run on a GPU machine with
//   nvcc -O3 -std=c++17 -arch=sm_90a -I 'templates/rmsnorm/{{python_name}}_cuda' \
//     tools/peer_bench/rmsnorm_launch_sweep.cu -o /tmp/sweep && /tmp/sweep [ROWSxHIDDEN]
// Timing: per launch, a 256 MB memset first (L2 flushed and full of dirty
// lines, as triton's do_bench leaves it), CUDA events around the kernel
// alone, median of 40; and per-call time of 20 back-to-back launches replayed
// from a CUDA graph (the launch-bound regime, no flush). bf16 x and weight.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "common/overlap.cuh"
#include "common/rms_norm_kernel.cuh"

namespace {

using namespace kernels_common;
using T = __nv_bfloat16;
constexpr int V = 8;

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// A persistent variant, measured and not adopted (H200, 2026-11-30: 5-10%
// slower than one block per row from 2048 rows up; see
// results/h200-2026-11-30/rmsnorm-launch-sweep.md). A grid of the blocks the
// GPU holds at once loops over the rows; each block loads its next row before
// it reduces and stores the current one, and keeps the weights in registers.
// Loads the vectors of one row that this thread owns (first, first + step,
// ...).
template <typename T, int V, int kVecs>
__device__ __forceinline__ void LoadOwnedVectors(const T* row, int first, int step, int nv,
                                                 Vec<T, V> (&r)[kVecs]) {
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = first + k * step;
    if (idx < nv) r[k].Load(row + static_cast<int64_t>(idx) * V);
  }
}

template <typename T, typename W, int V, int kVecs>
__global__ void __launch_bounds__(kMaxBlockThreads)
    RmsNormPersistentKernel(T* __restrict__ y, const T* __restrict__ x, const W* __restrict__ w,
                            int64_t rows, int nv, int64_t x_stride, int64_t y_stride,
                            float inv_hidden, float eps) {
  // BlockSum's scratch may be rewritten only after another barrier has
  // passed; alternating two buffers lets the next row's BlockSum be that
  // barrier.
  __shared__ float scratch[2][kWarpSize];
  const int first = static_cast<int>(threadIdx.x);
  const int step = static_cast<int>(blockDim.x);

  float wf[kVecs][V];
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = first + k * step;
    if (idx < nv) LoadWeights<W, V>(w, static_cast<int64_t>(idx) * V, wf[k]);
  }

  Vec<T, V> cur[kVecs] = {};
  int64_t row = blockIdx.x;
  if (row < rows) LoadOwnedVectors(x + row * x_stride, first, step, nv, cur);
  for (int parity = 0; row < rows; row += gridDim.x, parity ^= 1) {
    const int64_t next = row + gridDim.x;
    Vec<T, V> nxt[kVecs] = {};
    if (next < rows) LoadOwnedVectors(x + next * x_stride, first, step, nv, nxt);

    const RowSlot s{row, first, step, true};
    const float scale =
        RmsScale(BlockSum(SumSquares(cur, s, nv), scratch[parity]), inv_hidden, eps);
    T* y_row = y + row * y_stride;
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int idx = first + k * step;
      if (idx < nv) {
        Vec<T, V> out;
#pragma unroll
        for (int i = 0; i < V; ++i) out.Set(i, cur[k].Get(i) * scale * wf[k][i]);
        out.Store(y_row + static_cast<int64_t>(idx) * V);
      }
    }
#pragma unroll
    for (int k = 0; k < kVecs; ++k) cur[k] = nxt[k];
  }
}

// Blocks of `threads` threads of kKernel that one SM holds at once (registers
// and shared memory permitting); cached per kernel and block size, since the
// occupancy query costs microseconds and launches for small inputs do not.
template <auto kKernel>
int ResidentBlocksPerSm(int threads) {
  static std::atomic<int> cache[kMaxBlockThreads / kWarpSize + 1] = {};
  const int slot = threads / kWarpSize;
  int blocks = cache[slot].load(std::memory_order_relaxed);
  if (blocks == 0) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kKernel, threads, 0) !=
            cudaSuccess ||
        blocks <= 0) {
      blocks = 1;
    }
    cache[slot].store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

struct Buffers {
  T* x;
  T* y;
  T* w;
  void* flush;
  size_t flush_bytes = size_t{256} << 20;
};

using Launch = std::function<void(cudaStream_t)>;

// Median microseconds of one launch after an L2 flush.
double FlushedMedianUs(const Buffers& b, const Launch& launch, cudaStream_t stream) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < 45; ++i) {
    cudaMemsetAsync(b.flush, i & 0xff, b.flush_bytes, stream);
    cudaEventRecord(start, stream);
    launch(stream);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (i >= 5) ms.push_back(t);
  }
  Check(cudaGetLastError(), "launch");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2] * 1000.0;
}

// Microseconds per call of 20 launches captured in one CUDA graph.
double GraphUsPerCall(const Launch& launch, cudaStream_t stream) {
  constexpr int kCalls = 20;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  Check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "capture");
  for (int i = 0; i < kCalls; ++i) launch(stream);
  Check(cudaStreamEndCapture(stream, &graph), "end capture");
  Check(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < 25; ++i) {
    cudaEventRecord(start, stream);
    cudaGraphLaunch(exec, stream);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (i >= 5) ms.push_back(t);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2] * 1000.0 / kCalls;
}

__global__ void EmptyKernel() {}

// The empty kernel as an overlapped launch would run it (common/overlap.cuh).
__global__ void EmptyOverlappedKernel() {
  WaitForPreviousKernel();
  AllowNextKernelLaunch();
}

struct Config {
  std::string name;
  // Launches the kernel for `rows` rows of nv vectors; returns false when the
  // shape does not fit this configuration.
  std::function<bool(const Buffers&, int64_t rows, int nv, cudaStream_t)> run;
};

// One block per row, threads = nv / kVecs.
template <int kVecs>
Config BlockPerRow() {
  return {
      "block/row vecs=" + std::to_string(kVecs),
      [](const Buffers& b, int64_t rows, int nv, cudaStream_t s) {
        const int threads = RoundUpToWarp(nv / kVecs);
        if (nv % kVecs != 0 || threads < 32 || threads > 512) return false;
        RmsNormRegisterKernel<T, T, V, kVecs, 0><<<static_cast<unsigned>(rows), threads, 0, s>>>(
            b.y, b.x, b.w, rows, nv, int64_t{nv} * V, int64_t{nv} * V, 1.f / (nv * V), 1e-6f);
        return true;
      }};
}

// The template's launch (block per row, 2 vectors per thread at hidden 2048 /
// 4096) through LaunchOverlapped: programmatic dependent launch on sm_90+.
Config BlockPerRowOverlapped() {
  return {"block/row vecs=2 overlapped",
          [](const Buffers& b, int64_t rows, int nv, cudaStream_t s) {
            const int threads = RoundUpToWarp(nv / 2);
            if (nv % 2 != 0 || threads < 32 || threads > 512) return false;
            return LaunchOverlapped(RmsNormRegisterKernel<T, T, V, 2, 0>,
                                    dim3(static_cast<unsigned>(rows)), dim3(threads), s, b.y, b.x,
                                    b.w, rows, nv, int64_t{nv} * V, int64_t{nv} * V, 1.f / (nv * V),
                                    1e-6f) == cudaSuccess;
          }};
}

// A warp per row, kVecs vectors per lane, kWarps warps per block.
template <int kVecs, int kWarps>
Config WarpPerRow() {
  return {"warp/row vecs=" + std::to_string(kVecs) + " warps=" + std::to_string(kWarps),
          [](const Buffers& b, int64_t rows, int nv, cudaStream_t s) {
            if (nv > 32 * kVecs || nv <= 32 * (kVecs - 4)) return false;
            const auto blocks = static_cast<unsigned>(CeilDiv(rows, kWarps));
            RmsNormRegisterKernel<T, T, V, kVecs, 32><<<blocks, kWarps * 32, 0, s>>>(
                b.y, b.x, b.w, rows, nv, int64_t{nv} * V, int64_t{nv} * V, 1.f / (nv * V), 1e-6f);
            return true;
          }};
}

// A persistent grid (all resident blocks) looping over rows, next row
// prefetched; threads = nv / kVecs.
template <int kVecs>
Config Persistent() {
  return {"persistent vecs=" + std::to_string(kVecs),
          [](const Buffers& b, int64_t rows, int nv, cudaStream_t s) {
            const int threads = RoundUpToWarp(nv / kVecs);
            if (nv % kVecs != 0 || threads < 32 || threads > 512) return false;
            constexpr auto kernel = RmsNormPersistentKernel<T, T, V, kVecs>;
            const int64_t resident =
                int64_t{CachedSmCount()} * ResidentBlocksPerSm<kernel>(threads);
            const auto blocks = static_cast<unsigned>(rows < resident ? rows : resident);
            kernel<<<blocks, threads, 0, s>>>(b.y, b.x, b.w, rows, nv, int64_t{nv} * V,
                                              int64_t{nv} * V, 1.f / (nv * V), 1e-6f);
            return true;
          }};
}

}  // namespace

// Usage: sweep [ROWSxHIDDEN]: all shapes, or one (then without the graph
// timing, for profiling the flushed launches under ncu).
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const std::vector<std::pair<int64_t, int>> shapes = {
      {1, 4096},    {128, 4096},  {512, 4096},   {1024, 4096}, {2048, 4096},
      {4096, 4096}, {8192, 4096}, {32768, 4096}, {1024, 2048}, {2048, 2048},
      {4096, 2048}, {8192, 2048}, {8192, 3072},  {16384, 3072}};
  // Warp-per-row with 16 vectors per lane (hidden 4096) spills: ptxas runs out
  // of registers, so it is not listed.
  const std::vector<Config> configs = {
      BlockPerRow<1>(), BlockPerRow<2>(),   BlockPerRowOverlapped(), BlockPerRow<4>(),
      BlockPerRow<8>(), WarpPerRow<8, 4>(), WarpPerRow<8, 8>(),      WarpPerRow<12, 4>(),
      Persistent<1>(),  Persistent<2>(),    Persistent<4>()};

  Buffers b;
  const size_t max_elems = size_t{32768} * 4096;
  Check(cudaMalloc(&b.x, max_elems * sizeof(T)), "malloc x");
  Check(cudaMalloc(&b.y, max_elems * sizeof(T)), "malloc y");
  Check(cudaMalloc(&b.w, 8192 * sizeof(T)), "malloc w");
  Check(cudaMalloc(&b.flush, b.flush_bytes), "malloc flush");
  // x = 0x3f80 pattern (1.0 in bf16) plus noise is irrelevant for timing;
  // any finite values do.
  cudaMemset(b.x, 0x3c, max_elems * sizeof(T));
  cudaMemset(b.w, 0x3c, 8192 * sizeof(T));
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

  // Copy bandwidth (read + write) for the floor column.
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const size_t copy_bytes = max_elems * sizeof(T);
  cudaMemcpyAsync(b.y, b.x, copy_bytes, cudaMemcpyDeviceToDevice, stream);
  cudaEventRecord(e0, stream);
  for (int i = 0; i < 10; ++i)
    cudaMemcpyAsync(b.y, b.x, copy_bytes, cudaMemcpyDeviceToDevice, stream);
  cudaEventRecord(e1, stream);
  cudaEventSynchronize(e1);
  float copy_ms = 0;
  cudaEventElapsedTime(&copy_ms, e0, e1);
  const double copy_gbs = 2.0 * copy_bytes * 10 / (copy_ms * 1e6);

  const Launch empty = [](cudaStream_t s) { EmptyKernel<<<1, 32, 0, s>>>(); };
  const Launch empty_overlapped = [](cudaStream_t s) {
    Check(LaunchOverlapped(EmptyOverlappedKernel, dim3(1), dim3(32), s), "overlapped launch");
  };
  std::printf(
      "copy bandwidth %.0f GB/s; empty kernel: flushed %.2f us, graph %.2f us/call; "
      "overlapped empty kernel: flushed %.2f us, graph %.2f us/call\n",
      copy_gbs, FlushedMedianUs(b, empty, stream), GraphUsPerCall(empty, stream),
      FlushedMedianUs(b, empty_overlapped, stream), GraphUsPerCall(empty_overlapped, stream));
  std::printf("| rows x hidden | config | flushed us | %% of copy | graph us/call |\n");
  std::printf("|---|---|---|---|---|\n");
  for (const auto& shape : shapes) {
    const int64_t rows = shape.first;
    const int hidden = shape.second;
    if (!only.empty() && only != std::to_string(rows) + "x" + std::to_string(hidden)) continue;
    const int nv = hidden / V;
    const double bytes = 2.0 * rows * hidden * sizeof(T) + hidden * sizeof(T);
    for (const Config& c : configs) {
      const Launch launch = [&](cudaStream_t s) { c.run(b, rows, nv, s); };
      if (!c.run(b, rows, nv, stream)) continue;
      Check(cudaStreamSynchronize(stream), c.name.c_str());
      const double us = FlushedMedianUs(b, launch, stream);
      const double graph = rows <= 2048 && only.empty() ? GraphUsPerCall(launch, stream) : 0.0;
      std::printf("| %ldx%d | %s | %.2f | %.1f%% | %.2f |\n", static_cast<long>(rows), hidden,
                  c.name.c_str(), us, 100.0 * bytes / (us * 1e3) / copy_gbs, graph);
    }
  }
  return 0;
}
