// LayerNorm: y = (x - mean) * rsqrt(var + eps) * w + b over the last
// dimension, mean = sum(x) / n, var = sum((x - mean)^2) / n (biased, as
// F.layer_norm); w and b optional.
//
// Bytes moved (the floor): rows * hidden * sizeof(T) read + the same written
// + hidden * sizeof(W) for each of the weight and bias given (read once from
// DRAM, then from L1/L2). `kbuild bench` reports each case as a % of the
// measured copy bandwidth.
//
// Launch shape: the row plan of the norm ops (PlanRows, common/row_plan.h,
// has the table) with the register budget of 8 vectors per thread, as
// RMSNorm: LayerNorm holds x (and, where a thread holds up to 16 values of
// an aligned row, their weight and bias, loaded with x). nv = hidden / V
// vectors of V = 16 / sizeof(T) elements: 4-32 lanes per row with one
// vector each up to nv = 32, a warp per row up to 128, a block per row with
// 1, 2 or 8 vectors per thread up to 4096 (hidden 32768 bf16), then two
// passes. Rows that start off a 16-byte boundary (odd hidden) are split into
// a scalar head and tail and a body of 16-byte vectors (common/row_span.h)
// when x and y split alike.
// Statistics in fp32 (common/row_stats.cuh): from the values held in
// registers, the row's sum (first reduction), then the sum of squared
// deviations from that mean (second reduction), so rows whose mean dwarfs
// their spread keep their variance (mean 1e4, std 1 in fp32), where
// E[x^2] - E[x]^2 cancels; rows longer than registers hold merge Welford
// states in one pass, then read x again (an L2 hit). Launched overlapped
// (common/overlap.cuh).
//
// measured (H200, 2026-12-05, kbuild bench; results/h200-2026-12-05 run D):
// 32768x4096 bf16 140.6 us, 0.99x Liger (fp16 133.1, 1.04x); no_affine 98.9%
// of copy.

// bf16 elements are read from their 32-bit word (common/vec.cuh): fewer
// instructions (the 4096-wide block path 568 -> 512), the same values. H100,
// 2026-12-05 (results/h100-2026-12-05 run E): 18 of 20 timed bf16 cases faster,
// 2688x2048 11.28 -> 10.66 us, 4096x4096 23.92 -> 23.42 (0.98x -> 1.00x
// Liger), 8192 rows and up within 0.3%. Before any include: vec.cuh reads it
// (`--define VEC_BF16_WORD_UNPACK=0` turns it off).
#ifndef VEC_BF16_WORD_UNPACK
#define VEC_BF16_WORD_UNPACK 1
#endif

#include "common/held_row.cuh"
#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/row_slot.cuh"  // RowSlot: the row and vectors a thread owns
#include "common/row_span.cuh"
#include "common/row_stats.cuh"
#include "layer_norm.h"

namespace {

using namespace kernels_common;

// Threads of the register paths of aligned rows that hold up to 16 values
// load their weight and bias vectors right after x and keep them packed until
// the store, as Liger's kernel does; read after the two reductions, each
// block waited for them (L1 / L2 hits) before its first store. layer_norm
// bf16 vs Liger, default -> early: H200 4096x4096 0.94x -> 0.95x, 2048x4096
// 0.96x -> 0.99x, 2688x2048 0.99x -> 1.03x; H100 1.00-1.03x on every case,
// 0.93-1.01x before (2026-12-05, results/h200-2026-12-05 run C). Keeping
// x - mean in fp32 as well (48 registers) was slower on both.
constexpr int kEarlyParams = 16;

// The register kernels' minimum blocks per SM (__launch_bounds__): the bf16
// / fp16 block path with 2 vectors a thread and weights of x's type
// (4096-wide rows) asks for 32 registers, 8 blocks of 256 an SM instead of
// 6 at 40 (it spills 4 bytes; wider budgets spilled 8-372 bytes at 32, ptxas
// CUDA 13.0). H200, 2026-12-05 (results/h200-2026-12-05 run D), bf16:
// 32768x4096 141.9 -> 140.6 us (0.97x -> 0.99x Liger), fp16 135.9 -> 133.1;
// no_affine 32768x4096 134.9 -> 128.9 (94.5% -> 98.9% of copy), 16384x4096
// 69.4 -> 66.4; 1024-8192 rows within their p10-p90.
template <typename T, typename W, int V, int kVecs, int kGroup, bool kSplit>
constexpr int kRegisterMinBlocks = sizeof(T) == 2 && sizeof(W) == 2 && V == 8 && kVecs == 2 &&
                                           kGroup == kWholeBlock && !kSplit
                                       ? 2048 / kMaxBlockThreads  // sm_90's threads per SM
                                       : 0;

// Bias i as a float: 0 without a bias (nullptr).
template <typename W>
__device__ __forceinline__ float BiasAt(const W* b, int64_t i) {
  return b == nullptr ? 0.f : ToFloat(b[i]);
}

// One value normalized, scaled and shifted.
__device__ __forceinline__ float Normalized(float x, RowStats st, float w, float b) {
  return (x - st.mean) * st.rstd * w + b;
}

// The weight and bias of V columns from col as floats (bias 0 without one).
template <bool kVector, typename W, int V>
__device__ __forceinline__ void LoadWeightAndBias(const W* w, const W* b, int64_t col,
                                                  float (&wf)[V], float (&bf)[V]) {
  LoadWeights<W, V, kVector>(w, col, wf);
  if (b != nullptr) LoadWeights<W, V, kVector>(b, col, bf);
}

// The weight and bias of V columns as floats (1 and 0 where absent) from the
// vectors loaded with x (kEarlyParams; bv zero without a bias).
template <typename W, int V>
__device__ __forceinline__ void HeldWeightAndBias(const Vec<W, V>& wv, const Vec<W, V>& bv,
                                                  bool has_weight, float (&wf)[V],
                                                  float (&bf)[V]) {
#pragma unroll
  for (int i = 0; i < V; ++i) {
    wf[i] = has_weight ? wv.Get(i) : 1.f;
    bf[i] = bv.Get(i);
  }
}

// One vector of x normalized; col: its first column. kVector: the weight and
// bias are read as vectors (aligned rows), else an element at a time (a split
// row's alignment changes from row to row).
template <bool kVector, typename T, typename W, int V>
__device__ __forceinline__ Vec<T, V> Normalize(const Vec<T, V>& v, const W* w, const W* b,
                                               int64_t col, RowStats st) {
  float wf[V];
  float bf[V] = {};
  LoadWeightAndBias<kVector>(w, b, col, wf, bf);
  Vec<T, V> out;
#pragma unroll
  for (int i = 0; i < V; ++i) out.Set(i, Normalized(v.Get(i), st, wf[i], bf[i]));
  return out;
}

template <int V, int kSlots, typename T, typename W>
__device__ __forceinline__ void NormalizeEdges(T* y_row, const EdgeValues<kSlots>& edges,
                                               const W* w, const W* b, RowStats st,
                                               const RowSpan& span, int lane, int lanes) {
  ForEachEdge<V, kSlots>(span, lane, lanes, [&](int m, int i) {
    y_row[i] = FromFloat<T>(Normalized(edges.v[m], st, WeightAt(w, i), BiasAt(b, i)));
  });
}

// Every register path of the row plan: each thread loads its kVecs vectors
// (and a split row's edge elements) once; the row's threads reduce the sum,
// then the squared deviations from the mean; each thread stores what it
// holds.
template <typename T, typename W, int V, int kVecs, int kGroup, bool kSplit>
__global__ void __launch_bounds__(kMaxBlockThreads,
                                  kRegisterMinBlocks<T, W, V, kVecs, kGroup, kSplit>)
    LayerNormRegisterKernel(T* __restrict__ y, const T* __restrict__ x, const W* __restrict__ w,
                            const W* __restrict__ b, int64_t rows, int hidden, int first_phase,
                            int64_t x_stride, int64_t y_stride, float inv_hidden, float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kGroup, kSplit>;
  // Two block reductions in a row: two scratch arrays (reduce.cuh).
  __shared__ float sum_scratch[kWarpSize];
  __shared__ float deviation_scratch[kWarpSize];
  const RowSlot s = CurrentRowSlot<kGroup>(rows);
  const T* x_row = x + s.row * x_stride;
  T* y_row = y + s.row * y_stride;
  const RowSpan span =
      s.valid ? SpanOf<V, kSplit>(first_phase, s.row, x_stride, hidden) : RowSpan{};
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();

  Vec<T, V> r[kVecs] = {};  // zero-init: lets ptxas keep all in registers
  LoadHeldVectors<V, kSplit, /*kEvictFirst=*/VEC_READ_ONCE_EVICT_FIRST>(x_row, span, s.first, s.step, r);
  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, span, s.first, s.step, edges);

  // kEarlyParams: the weight and bias of the held vectors, now;
  // KeepPacked before the store converts them there (converted at the load,
  // the bf16 block path with 2 vectors a thread took 56 registers, packed 40).
  constexpr bool kEarly = !kSplit && kVecs * V <= kEarlyParams;
  Vec<W, V> wv[kEarly ? kVecs : 1] = {};
  Vec<W, V> bv[kEarly ? kVecs : 1] = {};
  if constexpr (kEarly) {
    if (w != nullptr) LoadHeldVectors<V, false>(w, span, s.first, s.step, wv);
    if (b != nullptr) LoadHeldVectors<V, false>(b, span, s.first, s.step, bv);
  }
  const float pivot = RowPivot(x_row, s.valid, hidden);
  const RowStats st = RegisterRowStats<kGroup, V>(
      r, edges, s.first, s.step, span, pivot, inv_hidden, eps, sum_scratch, deviation_scratch);
  KeepPacked(r);  // common/held_row.cuh: <= 64 registers, two 512-thread blocks per SM
  if constexpr (kEarly) KeepPacked(wv), KeepPacked(bv);

  ForEachHeldVector<kVecs>(span, s.first, s.step, [&](int k, int idx) {
    if constexpr (kEarly) {
      float wf[V], bf[V];
      HeldWeightAndBias(wv[k], bv[k], w != nullptr, wf, bf);
      Vec<T, V> out;
#pragma unroll
      for (int i = 0; i < V; ++i) out.Set(i, Normalized(r[k].Get(i), st, wf[i], bf[i]));
      *BodyVector<V, kSplit>(y_row, span, idx) = out;
    } else {
      *BodyVector<V, kSplit>(y_row, span, idx) =
          Normalize<!kSplit>(r[k], w, b, span.head + static_cast<int64_t>(idx) * V, st);
    }
  });
  NormalizeEdges<V>(y_row, edges, w, b, st, span, s.first, s.step);
}

// Rows too long for registers: pass 1 merges Welford states (mean and
// squared deviations, no cancellation), pass 2 re-reads x (an L2 hit: one
// row per block is at most a few hundred KB) and writes y. A split row's
// edge elements stay in registers between the passes. At least 2 blocks
// per SM: without a minimum ptxas held the split kernels to 32 registers and
// spilled.
template <typename T, typename W, int V, bool kSplit>
__global__ void __launch_bounds__(kLoopBlockThreads, 2)
    LayerNormLoopKernel(T* __restrict__ y, const T* __restrict__ x, const W* __restrict__ w,
                        const W* __restrict__ b, int hidden, int first_phase, int64_t x_stride,
                        int64_t y_stride, float inv_hidden, float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kWholeBlock, kSplit>;
  __shared__ Welford scratch[kWarpSize];
  const T* x_row = x + blockIdx.x * x_stride;
  T* y_row = y + blockIdx.x * y_stride;
  const RowSpan span = SpanOf<V, kSplit>(first_phase, blockIdx.x, x_stride, hidden);
  const int lane = threadIdx.x;
  const int lanes = blockDim.x;
  WaitForPreviousKernel();
  AllowNextKernelLaunch();
  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, span, lane, lanes, edges);
  const RowStats st = LoopRowStats<V, kSplit>(x_row, span, edges, inv_hidden, eps, scratch);
  // Two loads in flight: with the weight and bias of four, the split
  // fp32-weight kernels spilled (ptxas: 64 registers, two 512-thread blocks).
  ForEachLoopVector<V, kSplit, 2>(
      x_row, span, 0, span.body, lane, lanes, [&](int idx, const Vec<T, V>& v) {
        *BodyVector<V, kSplit>(y_row, span, idx) =
            Normalize<!kSplit>(v, w, b, span.head + static_cast<int64_t>(idx) * V, st);
      });
  NormalizeEdges<V>(y_row, edges, w, b, st, span, lane, lanes);
}

// The weight and the bias are read at the same columns with one vector
// width: the one whose address allows the narrower vectors stands for both
// in the plan (ChooseRowAccess takes one per-column parameter).
VectorAccess NarrowerParam(int max_width, int64_t hidden, VectorAccess a, VectorAccess b) {
  return PickVectorWidth(max_width, hidden, {a}) <= PickVectorWidth(max_width, hidden, {b}) ? a : b;
}

}  // namespace

namespace {{python_name}}_cuda {

cudaError_t LaunchLayerNorm(void* y, const void* x, const void* weight, const void* bias,
                            DType x_dtype, DType param_dtype, int64_t rows, int64_t hidden,
                            int64_t x_row_stride, int64_t y_row_stride, float eps,
                            cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  // Without a weight or bias the parameter type follows x (never read).
  if (weight == nullptr && bias == nullptr) param_dtype = x_dtype;
  const int elem = DTypeSize(x_dtype);
  const VectorAccess x_access{x, x_row_stride, elem};
  const VectorAccess y_access{y, y_row_stride, elem};
  const VectorAccess param_access = NarrowerParam(
      16 / elem, hidden, {weight, 0, DTypeSize(param_dtype)}, {bias, 0, DTypeSize(param_dtype)});
  RowLaunch l;
  const cudaError_t planned =
      PlanRowLaunch(rows, hidden, elem, {x_access, y_access}, param_access, &l);
  if (planned != cudaSuccess) return planned;
  const int row_elems = static_cast<int>(hidden);  // <= 2^30: checked above

  return DispatchRowOp(x_dtype, param_dtype, l.access, [&](auto xt, auto wt, auto vc, auto split) {
    using T = typename decltype(xt)::type;
    using W = typename decltype(wt)::type;
    constexpr int V = decltype(vc)::value;
    constexpr bool kSplit = decltype(split)::value;
    auto* yp = static_cast<T*>(y);
    const auto* xp = static_cast<const T*>(x);
    const auto* wp = static_cast<const W*>(weight);
    const auto* bp = static_cast<const W*>(bias);
    const dim3 grid(static_cast<unsigned>(l.plan.blocks));
    return LaunchForPath(
        l.plan.path,
        [&](auto vecs, auto group) {
          return LaunchOverlapped(LayerNormRegisterKernel<T, W, V, decltype(vecs)::value,
                                                          decltype(group)::value, kSplit>,
                                  grid, dim3(l.plan.threads), stream, yp, xp, wp, bp, rows,
                                  row_elems, l.access.first_phase, x_row_stride, y_row_stride,
                                  l.inv_hidden, eps);
        },
        [&] {
          return LaunchOverlapped(LayerNormLoopKernel<T, W, V, kSplit>, grid, dim3(l.plan.threads),
                                  stream, yp, xp, wp, bp, row_elems, l.access.first_phase,
                                  x_row_stride, y_row_stride, l.inv_hidden, eps);
        });
  });
}

}  // namespace {{python_name}}_cuda
