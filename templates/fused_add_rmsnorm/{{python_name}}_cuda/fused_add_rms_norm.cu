// Fused residual add + RMSNorm, in place:
//   residual = residual + x            (rounded to the input dtype)
//   x = residual * rsqrt(mean(residual^2) + eps) * w
//
// Bytes moved (the floor): rows * hidden * sizeof(T) * 4 (read x, read
// residual, write residual, write x) + hidden * sizeof(W) for the weight.
// Floor time = bytes / measured copy bandwidth (`kbuild doctor` measures it;
// `kbuild bench` reports each case as a % of it).
//
// Launch shape: the row plan of every norm op (PlanRows, common/row_plan.h,
// has the table), nv = hidden / V vectors, V = 16 / sizeof(T) when x,
// residual, weight and both row strides are aligned: 4-32 lanes per row with
// one vector each up to nv = 32 (hidden 256 bf16), a warp per row up to 128,
// a block per row with 1, 2 or 8 vectors per thread up to 4096, then two
// passes (the new residual re-read from L2). Rows that start off a 16-byte
// boundary (odd hidden, views one element in) and would fall below 8-byte
// vectors are split (common/row_span.h): scalar head and tail, a body of
// 16-byte vectors, when x and residual split alike; else narrower vectors.
// The sum stays in registers
// between the two halves, so each tensor is read once from DRAM. fp32
// accumulation; at most one __syncthreads per row. Launched overlapped
// (common/overlap.cuh): each kernel waits for the previous one before it
// touches memory.
//
// measured (H200, 2026-12-01, torch 2.11.0+cu130, CUDA 13.0, kbuild bench): bf16 8192x4096
//   69.6 us (91.7% of copy); geomean 1.02x the best of torch.compile / Liger / QuACK over 10
//   cases (results/h200-2026-12-01-peers, docs/rmsnorm.md).

#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/rms_row.cuh"
#include "common/row_span.cuh"
#include "fused_add_rms_norm.h"

namespace {

using namespace kernels_common;

// r = round_to_T(x + residual) for one vector (or one element: V = 1);
// stores it to the residual.
template <typename T, int V>
__device__ __forceinline__ Vec<T, V> AddIntoResidual(const Vec<T, V>& x,
                                                     Vec<T, V>& residual) {
  const Vec<T, V> xv = x;
  Vec<T, V> sum = residual;
#pragma unroll
  for (int i = 0; i < V; ++i) sum.Set(i, xv.Get(i) + sum.Get(i));
  residual = sum;
  return sum;
}

// The same for element i of a row.
template <typename T>
__device__ __forceinline__ float AddIntoResidualAt(const T* x_row, T* r_row,
                                                   int i) {
  return AddIntoResidual(reinterpret_cast<const Vec<T, 1>*>(x_row)[i],
                         reinterpret_cast<Vec<T, 1>*>(r_row)[i])
      .Get(0);
}

// x and residual may be the same tensor's memory; no __restrict__ on them.
template <typename T, typename W, int V, int kVecs, int kGroup, bool kSplit>
__global__ void __launch_bounds__(kMaxBlockThreads)
    FusedAddRmsNormRegisterKernel(T* x, T* residual, const W* __restrict__ w,
                                  int64_t rows, int hidden, int first_phase,
                                  int64_t x_stride, int64_t r_stride,
                                  float inv_hidden, float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kGroup, kSplit>;
  __shared__ float scratch[kWarpSize];
  const RowSlot s = CurrentRowSlot<kGroup>(rows);
  T* x_row = x + s.row * x_stride;
  T* r_row = residual + s.row * r_stride;
  const RowSpan span =
      s.valid ? SpanOf<V, kSplit>(first_phase, s.row, x_stride, hidden)
              : RowSpan{};
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();

  Vec<T, V> r[kVecs] = {};  // zero-init: lets ptxas keep all in registers
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int idx = s.first + k * s.step;
    if (idx < span.body) {
      r[k] = AddIntoResidual(*BodyVector<V, kSplit>(x_row, span, idx),
                             *BodyVector<V, kSplit>(r_row, span, idx));
    }
  }
  EdgeValues<kEdgeSlots> edges;
  ForEachEdge<V, kEdgeSlots>(span, s.first, s.step, [&](int m, int i) {
    edges.v[m] = AddIntoResidualAt(x_row, r_row, i);
  });
  const float total =
      RowSum<kGroup>(edges.AddSquares(SumSquares(r, s, span)), scratch);
  const float scale = RmsScale(total, inv_hidden, eps);
  StoreNormalized<kSplit>(x_row, r, w, scale, s, span);
  StoreNormalizedEdges<V>(x_row, edges, w, scale, span, s.first, s.step);
}

// Rows too long for registers: pass 1 adds and stores the residual while
// summing squares, pass 2 re-reads the residual (this thread wrote it; an L2
// hit) and writes x. A split row's edge elements (row_span.cuh) stay in
// registers between the passes.
template <typename T, typename W, int V, bool kSplit>
__global__ void __launch_bounds__(kLoopBlockThreads)
    FusedAddRmsNormLoopKernel(T* x, T* residual, const W* __restrict__ w,
                              int hidden, int first_phase, int64_t x_stride,
                              int64_t r_stride, float inv_hidden, float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kWholeBlock, kSplit>;
  __shared__ float scratch[kWarpSize];
  T* x_row = x + blockIdx.x * x_stride;
  T* r_row = residual + blockIdx.x * r_stride;
  const RowSpan span =
      SpanOf<V, kSplit>(first_phase, blockIdx.x, x_stride, hidden);
  const int lane = threadIdx.x;
  const int lanes = blockDim.x;
  WaitForPreviousKernel();
  AllowNextKernelLaunch();
  EdgeValues<kEdgeSlots> edges;
  ForEachEdge<V, kEdgeSlots>(span, lane, lanes, [&](int m, int i) {
    edges.v[m] = AddIntoResidualAt(x_row, r_row, i);
  });
  float sum = edges.AddSquares(0.f);
  for (int idx = lane; idx < span.body; idx += lanes) {
    const Vec<T, V> v = AddIntoResidual(*BodyVector<V, kSplit>(x_row, span, idx),
                                        *BodyVector<V, kSplit>(r_row, span, idx));
#pragma unroll
    for (int i = 0; i < V; ++i) sum += v.Get(i) * v.Get(i);
  }
  const float scale = RmsScale(BlockSum(sum, scratch), inv_hidden, eps);
  for (int idx = lane; idx < span.body; idx += lanes) {
    Vec<T, V> v = *BodyVector<V, kSplit>(r_row, span, idx);
    float wf[V];
    LoadWeights<W, V, !kSplit>(w, span.head + static_cast<int64_t>(idx) * V,
                               wf);
#pragma unroll
    for (int i = 0; i < V; ++i) v.Set(i, v.Get(i) * scale * wf[i]);
    *BodyVector<V, kSplit>(x_row, span, idx) = v;
  }
  StoreNormalizedEdges<V>(x_row, edges, w, scale, span, lane, lanes);
}

}  // namespace

namespace {{python_name}}_cuda {
cudaError_t LaunchFusedAddRmsNorm(void* x, void* residual, const void* weight,
                                  DType x_dtype, DType weight_dtype,
                                  int64_t rows, int64_t hidden,
                                  int64_t x_row_stride,
                                  int64_t residual_row_stride, float eps,
                                  cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (weight == nullptr) weight_dtype = x_dtype;
  const int elem = DTypeSize(x_dtype);
  const VectorAccess x_access{x, x_row_stride, elem};
  const VectorAccess r_access{residual, residual_row_stride, elem};
  const VectorAccess w_access{weight, 0, DTypeSize(weight_dtype)};
  RowLaunch l;
  const cudaError_t planned =
      PlanRowLaunch(rows, hidden, elem, {x_access, r_access}, w_access, &l);
  if (planned != cudaSuccess) return planned;
  const int row_elems = static_cast<int>(hidden);  // <= 2^30: checked above

  return DispatchRowOp(
      x_dtype, weight_dtype, l.access,
      [&](auto xt, auto wt, auto vc, auto split) {
        using T = typename decltype(xt)::type;
        using W = typename decltype(wt)::type;
        constexpr int V = decltype(vc)::value;
        constexpr bool kSplit = decltype(split)::value;
        auto* xp = static_cast<T*>(x);
        auto* rp = static_cast<T*>(residual);
        const auto* wp = static_cast<const W*>(weight);
        const dim3 grid(static_cast<unsigned>(l.plan.blocks));
        return LaunchForPath(
            l.plan.path,
            [&](auto vecs, auto group) {
              return LaunchOverlapped(
                  FusedAddRmsNormRegisterKernel<T, W, V, decltype(vecs)::value,
                                                decltype(group)::value, kSplit>,
                  grid, dim3(l.plan.threads), stream, xp, rp, wp, rows,
                  row_elems, l.access.first_phase, x_row_stride,
                  residual_row_stride, l.inv_hidden, eps);
            },
            [&] {
              return LaunchOverlapped(
                  FusedAddRmsNormLoopKernel<T, W, V, kSplit>, grid,
                  dim3(l.plan.threads), stream, xp, rp, wp, row_elems,
                  l.access.first_phase, x_row_stride, residual_row_stride,
                  l.inv_hidden, eps);
            });
      });
}

}  // namespace {{python_name}}_cuda
