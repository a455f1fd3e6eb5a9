// Times the rmsnorm template's kernel under the launch shapes it can take, and
// candidate mappings for 128-2048 rows of 2048-4096 elements (docs/rmsnorm.md,
// "Small and mid shapes: what the peers do"), in the regimes our numbers come
// from, so one GPU run picks the plan. Standalone (no torch), bf16:
//   nvcc -O3 -std=c++17 -arch=sm_90a -I 'templates/rmsnorm/{{python_name}}_cuda' \
//     tools/peer_bench/rmsnorm_launch_sweep.cu -o /tmp/sweep && /tmp/sweep [ROWSxHIDDEN]
// Every configuration is checked against a float64 reference first (rows of
// varied values), then timed with a plain launch and overlapped (programmatic
// dependent launch, common/overlap.cuh, as the templates launch), median us:
// "sync" (memset, launch, synchronize: the 2026-11-30 sweeps), "fill" and
// "memset" (as kbuild bench: host kept ahead behind a spin, L2 flushed by a
// kernel as the peer worker does or by a memset as the C++ harness does; "!":
// the host fell behind, not trusted) and "graph" (per call, 20 launches in a
// CUDA graph); rmsnorm_sweep_timing.cuh has the details. Last, per shape, the
// template's plan (PlanRows) against the fastest "fill" time. The persistent
// grid of earlier sweeps (5-11% slower from 2048 rows up, H200 2026-11-30) is
// in git history and results/h200-2026-11-30/rmsnorm-launch-sweep.md.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/overlap.cuh"
#include "common/rms_norm_kernel.cuh"
#include "rmsnorm_sweep_timing.cuh"

namespace {

using namespace kernels_common;
using sweep::Check;
using T = __nv_bfloat16;
constexpr int V = 8;  // bf16 elements per 16-byte vector

struct Tensors {
  T* x;
  T* y;
  T* w;
};

__device__ __forceinline__ uint32_t PackBf16x2(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// One 16-byte load (LDG.E.128): the sweep's rows and weight are aligned.
__device__ __forceinline__ Vec<T, V> LoadVector(const T* p) {
  return *reinterpret_cast<const Vec<T, V>*>(p);
}

// One 16-byte store (STG.E.128) of 8 floats rounded to bf16. Written as a Vec,
// nvcc 13.0 split this store into 2- and 4-byte pieces in the one-row-per-block
// candidates (not in the template's kernel), which would skew the comparison.
__device__ __forceinline__ void StoreVector(T* p, const float (&f)[V]) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(__cvta_generic_to_global(p)),
               "r"(PackBf16x2(f[0], f[1])), "r"(PackBf16x2(f[2], f[3])),
               "r"(PackBf16x2(f[4], f[5])), "r"(PackBf16x2(f[6], f[7]))
               : "memory");
}

// A candidate mapping: kLanes threads per row (32-512), kRows rows per block,
// kVecs vectors per thread, the weight read with x (kWeightEarly, as Liger and
// QuACK do) or after the reduction (as the template and torch.compile do).
// kWaitPrevious: the griddepcontrol calls an overlapped launch needs; without
// them (plain launches only) the sweep sees what the calls cost by themselves.
// One vector per thread pays only while every thread is resident at once, so
// those kernels are held to full occupancy (32 registers).
template <int kLanes, int kVecs, int kRows, bool kWeightEarly, bool kWaitPrevious>
__global__ void __launch_bounds__(kLanes* kRows, kVecs == 1 ? 2048 / (kLanes * kRows) : 1)
    CandidateKernel(T* __restrict__ y, const T* __restrict__ x, const T* __restrict__ w,
                    int64_t rows, int nv, float inv_hidden, float eps) {
  constexpr int kWarpsPerRow = kLanes > kWarpSize ? kLanes / kWarpSize : 1;
  __shared__ float partial[kRows][kWarpsPerRow];
  const int slot = static_cast<int>(threadIdx.x) / kLanes;  // the block's row
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRows + slot;
  const int limit = row < rows ? nv : 0;  // lanes of a missing row stay for the barrier
  const int64_t row_offset = row * nv * V;
  if constexpr (kWaitPrevious) {
    WaitForPreviousKernel();
    AllowNextKernelLaunch();
  }
  Vec<T, V> r[kVecs] = {};
  Vec<T, V> wv[kWeightEarly ? kVecs : 1] = {};
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = lane + k * kLanes;
    if (idx < limit) {
      r[k] = LoadVector(x + row_offset + static_cast<int64_t>(idx) * V);
      if constexpr (kWeightEarly) wv[k] = LoadVector(w + static_cast<int64_t>(idx) * V);
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
#pragma unroll
    for (int i = 0; i < V; ++i) sum += r[k].Get(i) * r[k].Get(i);
  }
  sum = GroupSum<(kLanes < kWarpSize ? kLanes : kWarpSize)>(sum);
  if constexpr (kWarpsPerRow > 1) {
    if (lane % kWarpSize == 0) partial[slot][lane / kWarpSize] = sum;
    __syncthreads();
    sum = 0.f;
#pragma unroll
    for (int i = 0; i < kWarpsPerRow; ++i) sum += partial[slot][i];
  }
  const float scale = RmsScale(sum, inv_hidden, eps);
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = lane + k * kLanes;
    if (idx < limit) {
      const Vec<T, V> wk = kWeightEarly ? wv[k] : LoadVector(w + static_cast<int64_t>(idx) * V);
      float out[V];
#pragma unroll
      for (int i = 0; i < V; ++i) out[i] = r[k].Get(i) * scale * wk.Get(i);
      StoreVector(y + row_offset + static_cast<int64_t>(idx) * V, out);
    }
  }
}

// The empty kernel as the norms start: griddepcontrol, then nothing.
__global__ void EmptyKernel() {
  WaitForPreviousKernel();
  AllowNextKernelLaunch();
}

// Values in [-2, 2) from an integer hash of the index: rows that differ, so
// a mapping that mixes up rows or lanes fails the check.
__global__ void FillPattern(T* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = __float2bfloat16((h & 0xffff) / 16384.f - 2.f);
  }
}

// Rows 0, rows / 2 and rows - 1 of y against float64, with the harness's bf16
// tolerance (atol 0.01, rtol 0.016); "" when they match.
std::string ValueProblem(const Tensors& t, int64_t rows, int hidden) {
  std::vector<T> w(hidden), x(hidden), y(hidden);
  Check(cudaMemcpy(w.data(), t.w, hidden * sizeof(T), cudaMemcpyDeviceToHost), "copy w");
  for (const int64_t row : {int64_t{0}, rows / 2, rows - 1}) {
    const size_t offset = static_cast<size_t>(row) * hidden;
    Check(cudaMemcpy(x.data(), t.x + offset, hidden * sizeof(T), cudaMemcpyDeviceToHost), "x");
    Check(cudaMemcpy(y.data(), t.y + offset, hidden * sizeof(T), cudaMemcpyDeviceToHost), "y");
    double sum = 0;
    for (int i = 0; i < hidden; ++i) sum += double(__bfloat162float(x[i])) * __bfloat162float(x[i]);
    const double scale = 1 / std::sqrt(sum / hidden + 1e-6);
    for (int i = 0; i < hidden; ++i) {
      const double want = __bfloat162float(x[i]) * scale * __bfloat162float(w[i]);
      const double got = __bfloat162float(y[i]);
      if (!(std::fabs(got - want) <= 0.01 + 0.016 * std::fabs(want))) {
        return "row " + std::to_string(row) + " element " + std::to_string(i) + ": got " +
               std::to_string(got) + ", want " + std::to_string(want);
      }
    }
  }
  return "";
}

// kernel<<<grid, block>>>(args...), overlapped if asked (common/overlap.cuh).
template <typename... KernelArgs, typename... Args>
cudaError_t LaunchAs(bool overlapped, void (*kernel)(KernelArgs...), unsigned grid, int block,
                     cudaStream_t s, Args... args) {
  if (overlapped) return LaunchOverlapped(kernel, dim3(grid), dim3(block), s, args...);
  kernel<<<grid, block, 0, s>>>(args...);
  return cudaGetLastError();
}

struct Config {
  std::string name;
  bool plain_only;  // no griddepcontrol calls: an overlapped launch would be unsafe
  // Launches for `rows` rows of nv vectors; false when the shape does not fit.
  std::function<bool(const Tensors&, int64_t rows, int nv, bool overlapped, cudaStream_t)> run;
};

// The template's kernel (common/rms_norm_kernel.cuh) on a block-per-row path:
// a block of `threads` per row, kVecs vectors per thread. The one call to
// follow when the kernel's parameters change.
template <int kVecs>
bool RunTemplate(const Tensors& t, int64_t rows, int nv, int threads, bool overlapped,
                 cudaStream_t s) {
  // Aligned rows (kSplit = false): hidden = nv * V, every row at phase 0.
  return LaunchAs(overlapped, RmsNormRegisterKernel<T, T, V, kVecs, kWholeBlock, false>,
                  static_cast<unsigned>(rows), threads, s, t.y, t.x, t.w, rows, nv * V,
                  /*first_phase=*/0, int64_t{nv} * V, int64_t{nv} * V, 1.f / (nv * V),
                  1e-6f) == cudaSuccess;
}

// Template kernel, a block per row of nv / kVecs threads (PlanRows' block paths).
template <int kVecs>
Config BlockPerRow() {
  return {"template block/row vecs=" + std::to_string(kVecs), false,
          [](const Tensors& t, int64_t rows, int nv, bool overlapped, cudaStream_t s) {
            const int threads = RoundUpToWarp(nv / kVecs);
            if (nv % kVecs != 0 || threads < 32 || threads > kMaxBlockThreads) return false;
            return RunTemplate<kVecs>(t, rows, nv, threads, overlapped, s);
          }};
}

// A CandidateKernel mapping; runs only where a row is exactly kLanes x kVecs vectors.
template <int kLanes, int kVecs, int kRows, bool kWeightEarly, bool kWaitPrevious = true>
Config Candidate() {
  const std::string name = "lanes=" + std::to_string(kLanes) + " vecs=" + std::to_string(kVecs) +
                           " rows=" + std::to_string(kRows) + (kWeightEarly ? " w-early" : "") +
                           (kWaitPrevious ? "" : " no-griddep");
  return {name, !kWaitPrevious,
          [](const Tensors& t, int64_t rows, int nv, bool overlapped, cudaStream_t s) {
            if (nv != kLanes * kVecs) return false;
            const auto grid = static_cast<unsigned>(CeilDiv(rows, kRows));
            return LaunchAs(overlapped,
                            CandidateKernel<kLanes, kVecs, kRows, kWeightEarly, kWaitPrevious>,
                            grid, kLanes * kRows, s, t.y, t.x, t.w, rows, nv, 1.f / (nv * V),
                            1e-6f) == cudaSuccess;
          }};
}

std::vector<Config> AllConfigs() {
  return {
      // The template's own kernel on its paths.
      BlockPerRow<1>(), BlockPerRow<2>(), BlockPerRow<4>(), BlockPerRow<8>(),
      // Hidden 4096 (512 vectors): one vector per thread without griddepcontrol
      // and with the weight early; Liger's 256 x 2 with the weight early;
      // 128 x 4; QuACK's 64 x 8, 2 rows per 128 threads; a warp per row (the
      // template's kernel spills there: its 512-thread bound allows 128 registers).
      Candidate<512, 1, 1, false, false>(), Candidate<512, 1, 1, true>(),
      Candidate<256, 2, 1, true>(), Candidate<128, 4, 1, false>(), Candidate<128, 4, 2, false>(),
      Candidate<128, 4, 4, false>(), Candidate<64, 8, 2, true>(), Candidate<64, 8, 2, false>(),
      Candidate<64, 8, 4, false>(), Candidate<32, 16, 2, false>(), Candidate<32, 16, 4, false>(),
      // Hidden 2048 (256 vectors): torch.compile's 2 rows per 512 threads;
      // 128 x 2; 64 x 4; QuACK's warp per row x 8, 4 rows per 128 threads.
      Candidate<256, 1, 1, false, false>(), Candidate<256, 1, 2, false>(),
      Candidate<128, 2, 1, false>(), Candidate<128, 2, 2, false>(), Candidate<64, 4, 2, false>(),
      Candidate<64, 4, 4, false>(), Candidate<32, 8, 4, true>(), Candidate<32, 8, 4, false>()};
}

struct Best {
  std::string name;
  double us = 1e30;
};

}  // namespace

// Usage: sweep [ROWSxHIDDEN]: all shapes, or one for profiling under ncu
// (then only the "sync" timing: the other columns launch 7x as often).
int main(int argc, char** argv) {
  using namespace sweep;
  const std::string only = argc > 1 ? argv[1] : "";
  const bool profiling = !only.empty();
  const std::vector<std::pair<int64_t, int>> shapes = {
      {1, 4096},    {128, 4096},  {512, 4096},   {1024, 4096}, {2048, 4096},
      {4096, 4096}, {8192, 4096}, {32768, 4096}, {1024, 2048}, {2048, 2048},
      {4096, 2048}, {8192, 2048}, {8192, 3072},  {16384, 3072}};
  const std::vector<Config> configs = AllConfigs();

  Tensors t;
  const size_t max_elems = size_t{32768} * 4096;
  Check(cudaMalloc(&t.x, max_elems * sizeof(T)), "malloc x");
  Check(cudaMalloc(&t.y, max_elems * sizeof(T)), "malloc y");
  Check(cudaMalloc(&t.w, 8192 * sizeof(T)), "malloc w");
  FillPattern<<<1024, 256>>>(t.x, max_elems, 1);
  FillPattern<<<8, 256>>>(t.w, 8192, 2);
  Check(cudaDeviceSynchronize(), "fill inputs");
  const FlushBuffers flush = AllocateFlushBuffers();
  cudaStream_t stream;
  Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");

  const Launch empty = [](cudaStream_t s) { EmptyKernel<<<1, 32, 0, s>>>(); };
  const Launch empty_overlapped = [](cudaStream_t s) {
    Check(LaunchOverlapped(EmptyKernel, dim3(1), dim3(32), s), "overlapped launch");
  };
  if (!profiling) {
    std::printf(
        "empty kernel, plain / overlapped: sync %.2f / %.2f us, fill %.2f / %.2f us, "
        "graph %.2f / %.2f us per call\n",
        SyncFlushedUs(flush, empty, stream), SyncFlushedUs(flush, empty_overlapped, stream),
        QueuedUs(flush, Flush::kFill, empty, stream).us,
        QueuedUs(flush, Flush::kFill, empty_overlapped, stream).us, GraphUsPerCall(empty, stream),
        GraphUsPerCall(empty_overlapped, stream));
  }
  std::printf(
      "| rows x hidden | config | launch | sync us | fill us | memset us | graph us/call |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::vector<std::string> summary;
  for (const auto& shape_size : shapes) {
    const int64_t rows = shape_size.first;
    const int hidden = shape_size.second;
    const std::string shape = std::to_string(rows) + "x" + std::to_string(hidden);
    if (!only.empty() && only != shape) continue;
    const int nv = hidden / V;
    // Every shape here has nv >= 256: PlanRows gives a block-per-row path.
    const RowPlan plan = PlanRows(rows, nv, CachedSmCount(), CachedThreadsPerSm());
    const std::string planned =
        "template block/row vecs=" + std::to_string(ShapeOf(plan.path).vecs);
    double planned_us = 0;
    Best best;
    for (const Config& c : configs) {
      for (const bool overlapped : {false, true}) {
        if (overlapped && c.plain_only) continue;
        const size_t y_bytes = static_cast<size_t>(rows) * hidden * sizeof(T);
        Check(cudaMemsetAsync(t.y, 0xff, y_bytes, stream), "poison y");  // NaN in bf16
        if (!c.run(t, rows, nv, overlapped, stream)) break;
        Check(cudaStreamSynchronize(stream), c.name.c_str());
        const char* how = overlapped ? "overlapped" : "plain";
        const std::string problem = ValueProblem(t, rows, hidden);
        if (!problem.empty()) {
          std::printf("| %s | %s | %s | wrong: %s | | | |\n", shape.c_str(), c.name.c_str(), how,
                      problem.c_str());
          continue;
        }
        const Launch launch = [&](cudaStream_t s) { c.run(t, rows, nv, overlapped, s); };
        const double sync = SyncFlushedUs(flush, launch, stream);
        const Queued none{0, false};
        const Queued fill = profiling ? none : QueuedUs(flush, Flush::kFill, launch, stream);
        const Queued memset = profiling ? none : QueuedUs(flush, Flush::kMemset, launch, stream);
        const double graph = rows <= 2048 && !profiling ? GraphUsPerCall(launch, stream) : 0.0;
        std::printf("| %s | %s | %s | %.2f | %.2f%s | %.2f%s | %.2f |\n", shape.c_str(),
                    c.name.c_str(), how, sync, fill.us, fill.host_behind ? "!" : "", memset.us,
                    memset.host_behind ? "!" : "", graph);
        if (c.name == planned && overlapped) planned_us = fill.us;
        if (!profiling && !fill.host_behind && fill.us < best.us) {
          best = {c.name + ", " + how, fill.us};
        }
      }
    }
    char line[512];
    std::snprintf(line, sizeof line, "| %s | %s, overlapped | %.2f | %s | %.2f | %.2fx |",
                  shape.c_str(), planned.c_str(), planned_us, best.name.c_str(), best.us,
                  planned_us / best.us);
    summary.push_back(line);
  }
  if (profiling) return 0;
  std::printf(
      "\nThe template's plan against the fastest configuration, \"fill\" column (as "
      "kbuild bench flushes for its peer comparison):\n");
  std::printf("| rows x hidden | template plan | us | fastest | us | plan / fastest |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const std::string& line : summary) std::printf("%s\n", line.c_str());
  return 0;
}
