// RMSNorm: y = x * rsqrt(mean(x^2) + eps) * w over the last dimension.
//
// Bytes moved (the floor): rows * hidden * sizeof(T) read + the same written
// + hidden * sizeof(W) for the weight (read once from DRAM, then from L1/L2).
// Floor time = bytes / measured copy bandwidth (`kbuild doctor` measures it;
// `kbuild bench` reports each case as a % of it).
//
// Launch shape: the row plan of every norm op (PlanRows, common/row_plan.h,
// has the table), nv = hidden / V vectors of V = 16 / sizeof(T) elements when
// pointers and strides are aligned: 4-32 lanes per row with one vector each
// up to nv = 32 (hidden 256 bf16), a warp per row up to 128, a block per row
// with 1, 2 or 8 vectors per thread up to 4096, then two passes (x re-read
// from L2, not DRAM). Rows that start off a 16-byte boundary (odd hidden)
// and would fall below 8-byte vectors are split (common/row_span.h): scalar
// head and tail, a body of 16-byte vectors, when x and y split alike; else
// narrower vectors. fp32 accumulation; rsqrtf; at most one __syncthreads
// per row. Launched overlapped (common/overlap.cuh): on sm_90+ the launch of
// the next norm hides behind this one's tail; each kernel waits for the
// previous one before it touches memory. Launch shapes measured and
// rejected: docs/rmsnorm.md. The tunable constants (register budget, short-row
// block size, launch bound, loop block size): rms_norm_tuning.h.
//
// measured (H200, 2026-12-01, torch 2.11.0+cu130, CUDA 13.0, kbuild bench): bf16 32768x4096
//   134.8 us (94.7% of copy), 0.99x-1.27x the best of torch.compile / Liger / QuACK from 2048
//   rows up, 0.90-0.95x at 128-1024 rows (results/h200-2026-12-01-peers, docs/rmsnorm.md).

#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/rms_norm_kernel.cuh"
#include "common/rms_row.cuh"
#include "common/row_span.cuh"
#include "rms_norm.h"
#include "rms_norm_tuning.h"

namespace {

using namespace kernels_common;
using namespace rms_norm_tuning;

// Rows too long for registers: pass 1 sums squares, pass 2 re-reads x (an L2
// hit: one row per block is at most a few hundred KB) and writes y. A split
// row's edge elements (row_span.cuh) stay in registers between the passes.
template <typename T, typename W, int V, bool kSplit>
__global__ void __launch_bounds__(kLoopThreads)
    RmsNormLoopKernel(T* __restrict__ y, const T* __restrict__ x,
                      const W* __restrict__ w, int hidden, int first_phase,
                      int64_t x_stride, int64_t y_stride, float inv_hidden,
                      float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kWholeBlock, kSplit>;
  __shared__ float scratch[kWarpSize];
  const T* x_row = x + blockIdx.x * x_stride;
  T* y_row = y + blockIdx.x * y_stride;
  const RowSpan span =
      SpanOf<V, kSplit>(first_phase, blockIdx.x, x_stride, hidden);
  const int lane = threadIdx.x;
  const int lanes = blockDim.x;
  WaitForPreviousKernel();
  AllowNextKernelLaunch();
  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, span, lane, lanes, edges);
  float sum = edges.AddSquares(0.f);
  // Several loads in flight per thread (common/row_span.cuh).
  ForEachLoopVector<V, kSplit>(
      x_row, span, 0, span.body, lane, lanes, [&](int, const Vec<T, V>& v) {
#pragma unroll
        for (int i = 0; i < V; ++i) sum += v.Get(i) * v.Get(i);
      });
  const float scale = RmsScale(BlockSum(sum, scratch), inv_hidden, eps);
  // Two in flight here: four, with a split row's scalar weights, put 8 bytes
  // of the fp16 / fp32-weight kernel on the stack (ptxas, CUDA 13.0).
  ForEachLoopVector<V, kSplit, 2>(
      x_row, span, 0, span.body, lane, lanes, [&](int idx, const Vec<T, V>& v) {
        float wf[V];
        LoadWeights<W, V, !kSplit>(
            w, span.head + static_cast<int64_t>(idx) * V, wf);
        Vec<T, V> out;
#pragma unroll
        for (int i = 0; i < V; ++i) out.Set(i, v.Get(i) * scale * wf[i]);
        *BodyVector<V, kSplit>(y_row, span, idx) = out;
      });
  StoreNormalizedEdges<V>(y_row, edges, w, scale, span, lane, lanes);
}

}  // namespace

namespace {{python_name}}_cuda {
cudaError_t LaunchRmsNorm(void* y, const void* x, const void* weight,
                          DType x_dtype, DType weight_dtype, int64_t rows,
                          int64_t hidden, int64_t x_row_stride,
                          int64_t y_row_stride, float eps,
                          cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  // Without a weight the weight type follows x (nullptr is never read).
  if (weight == nullptr) weight_dtype = x_dtype;
  const int elem = DTypeSize(x_dtype);
  const VectorAccess x_access{x, x_row_stride, elem};
  const VectorAccess y_access{y, y_row_stride, elem};
  const VectorAccess w_access{weight, 0, DTypeSize(weight_dtype)};
  RowLaunch l;
  const cudaError_t planned = PlanRowLaunch(
      rows, hidden, elem, {x_access, y_access}, w_access, &l, kVecs, kGroupWarps, kShortRowVecs);
  if (planned != cudaSuccess) return planned;
  // The loop kernel's block is this op's own (it strides by blockDim.x).
  if (l.plan.path == RowPath::kBlockLoop) l.plan.threads = kLoopThreads;
  const int row_elems = static_cast<int>(hidden);  // <= 2^30: checked above

  return DispatchRowOp(
      x_dtype, weight_dtype, l.access,
      [&](auto xt, auto wt, auto vc, auto split) {
        using T = typename decltype(xt)::type;
        using W = typename decltype(wt)::type;
        constexpr int V = decltype(vc)::value;
        constexpr bool kSplit = decltype(split)::value;
        auto* yp = static_cast<T*>(y);
        const auto* xp = static_cast<const T*>(x);
        const auto* wp = static_cast<const W*>(weight);
        const dim3 grid(static_cast<unsigned>(l.plan.blocks));
        return LaunchForPath<kVecs, kShortRowVecs>(
            l.plan.path,
            [&](auto vecs, auto group) {
              return LaunchOverlapped(
                  RmsNormRegisterKernel<T, W, V, decltype(vecs)::value,
                                        decltype(group)::value, kSplit,
                                        kMinBlocks>,
                  grid, dim3(l.plan.threads), stream, yp, xp, wp, rows,
                  row_elems, l.access.first_phase, x_row_stride, y_row_stride,
                  l.inv_hidden, eps);
            },
            [&] {
              return LaunchOverlapped(
                  RmsNormLoopKernel<T, W, V, kSplit>, grid,
                  dim3(l.plan.threads), stream, yp, xp, wp, row_elems,
                  l.access.first_phase, x_row_stride, y_row_stride,
                  l.inv_hidden, eps);
            });
      });
}

}  // namespace {{python_name}}_cuda
