// Gated residual of DiT blocks, elementwise over x [b, tokens, hidden]:
//   out = x + gate * y
// gate per sample ([b, hidden]) or per token ([b, tokens, hidden]), of x's
// dtype or float32; computed in float32, rounded once to x's dtype.
// LTX-Video (diffusers transformer_ltx.py, LTXVideoTransformerBlock.forward):
//   hidden_states = hidden_states + attn_hidden_states * gate_msa
//   hidden_states = hidden_states + ff_output * gate_mlp
// with gate_msa / gate_mlp views of the same [b, temb.size(1), 6, hidden]
// tensor as the adaptive norm's shift and scale.
//
// Bytes moved (the floor): 2 * rows * hidden * sizeof(T) read (x, y) + the
// same / 2 written + hidden * sizeof(W) of gate once per row that needs its
// own (per token: every row; per sample: once per sample).
//
// Launch shape: a block covers up to 256 vectors of one row (one 16-byte
// vector of x, y and out per thread; ceil(vectors / 256) blocks per row):
// LTX-Video's hidden 2048 bf16 is one 256-thread block per row. Rows that
// start off a 16-byte boundary split as in the norms (common/row_span.h);
// the edge elements go to the row's first block. Launched overlapped
// (common/overlap.cuh). Launches whose out fits in half of L2 and whose
// traffic does not read x and y evict-first (common/launch.cuh's
// EvictReadsFirstPays; kbuild --define EVICT_READS_FIRST_RULE=0 turns the
// rule off).
//
// measured (H200, 2026-12-04, kbuild bench, bf16): 2x6144x2048 36.2 us, 98.5% of
// copy; 0.98-1.00x torch.compile, the lowest at 1x2688x2048
// (results/h200-2026-12-04/run-0223).

#include "common/fast_divmod.h"
#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/param_rows.h"
#include "common/row_span.cuh"
#include "common/vec.cuh"
#include "gated_residual.h"

namespace {{python_name}}_cuda {
namespace {

using namespace kernels_common;

// Vectors one block covers; inductor's 128 measured the same (results/h200-2026-12-04/run-0544).
constexpr int kGatedThreads = 256;

template <typename T, typename W, int V>
__device__ __forceinline__ Vec<T, V> GatedSum(const Vec<T, V>& x, const Vec<T, V>& y,
                                              const float (&gate)[V]) {
  Vec<T, V> out;
#pragma unroll
  for (int i = 0; i < V; ++i) out.Set(i, fmaf(gate[i], y.Get(i), x.Get(i)));
  return out;
}

// kEvictFirst: x's and y's reads evict-first (vec.cuh), for launches that
// EvictReadsFirstPays (launch.cuh).
template <typename T, typename W, int V, bool kSplit, bool kEvictFirst>
__global__ void __launch_bounds__(kGatedThreads)
    GatedResidualKernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ y,
                        ParamRows gate, FastDivmod tokens, int hidden, int first_phase,
                        int64_t x_stride, int64_t y_stride, int64_t out_stride,
                        FastDivmod blocks_per_row) {
  // Multiply-highs, not divisions, before the first load (rows < 2^31: the launch's check).
  uint32_t row = 0;
  const int part = static_cast<int>(blocks_per_row.DivMod(blockIdx.x, &row));
  const T* x_row = x + row * x_stride;
  const T* y_row = y + row * y_stride;
  T* out_row = out + row * out_stride;
  const RowSpan span = SpanOf<V, kSplit>(first_phase, row, x_stride, hidden);
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();
  const W* gate_row = RowOf<W>(gate, row, tokens);
  const int idx = part * blockDim.x + threadIdx.x;
  if (idx < span.body) {
    float g[V];
    LoadWeights<W, V, !kSplit>(gate_row, span.head + static_cast<int64_t>(idx) * V, g);
    // By value: bound to references, nvcc read x and y one element at a time (8 scalar loads).
    const Vec<T, V> xv = LoadReadOnce<kEvictFirst>(BodyVector<V, kSplit>(x_row, span, idx));
    const Vec<T, V> yv = LoadReadOnce<kEvictFirst>(BodyVector<V, kSplit>(y_row, span, idx));
    *BodyVector<V, kSplit>(out_row, span, idx) = GatedSum<T, W, V>(xv, yv, g);
  }
  if (part == 0) {
    constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kWholeBlock, kSplit>;
    ForEachEdge<V, kEdgeSlots>(span, threadIdx.x, blockDim.x, [&](int, int i) {
      out_row[i] = FromFloat<T>(fmaf(ToFloat(gate_row[i]), ToFloat(y_row[i]), ToFloat(x_row[i])));
    });
  }
}

}  // namespace

cudaError_t LaunchGatedResidual(void* out, const void* x, const void* y, ParamRows gate,
                                DType x_dtype, DType gate_dtype, int64_t rows, int64_t tokens,
                                int64_t hidden, int64_t x_row_stride, int64_t y_row_stride,
                                int64_t out_row_stride, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (rows < 0 || tokens <= 0 || hidden <= 0 || hidden > (int64_t{1} << 30)) {
    return cudaErrorInvalidValue;
  }
  const int elem = DTypeSize(x_dtype);
  const int max_width = 16 / elem;
  const RowAccess access = FitParamRows(
      ChooseRowAccess(max_width, hidden,
                      {VectorAccess{x, x_row_stride, elem}, VectorAccess{y, y_row_stride, elem},
                       VectorAccess{out, out_row_stride, elem}},
                      VectorAccess{nullptr, 0, elem}),
      max_width, hidden, {gate}, DTypeSize(gate_dtype));
  const int threads = static_cast<int>(
      RoundUpToWarp(access.vectors < kGatedThreads ? access.vectors : kGatedThreads));
  const int64_t blocks_per_row = CeilDiv(access.vectors, threads);
  // Also keeps every row below 2^31, which the kernel's FastDivmod splits rely on.
  if (rows * blocks_per_row > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(rows * blocks_per_row));
  const int row_elems = static_cast<int>(hidden);
  // x and y read once; a per-token gate too (a per-sample one stays in L2 across its rows).
  const int64_t out_bytes = rows * hidden * elem;
  const int64_t gate_bytes = gate.token_stride != 0 ? rows * hidden * DTypeSize(gate_dtype) : 0;
  const bool evict_reads_first = EvictReadsFirstPays(2 * out_bytes + gate_bytes, out_bytes);

  return DispatchRowOp(x_dtype, gate_dtype, access, [&](auto xt, auto wt, auto vc, auto split) {
    using T = typename decltype(xt)::type;
    using W = typename decltype(wt)::type;
    constexpr int V = decltype(vc)::value;
    constexpr bool kSplit = decltype(split)::value;
    const auto launch = [&](auto evict_first) {
      return LaunchOverlapped(GatedResidualKernel<T, W, V, kSplit, decltype(evict_first)::value>,
                              grid, dim3(threads), stream, static_cast<T*>(out),
                              static_cast<const T*>(x), static_cast<const T*>(y), gate,
                              TokensDivisor(tokens), row_elems, access.first_phase, x_row_stride,
                              y_row_stride, out_row_stride,
                              FastDivmod(static_cast<uint32_t>(blocks_per_row)));
    };
    // The knob's hints everywhere; else where the rule picks them (16-byte vectors only: the
    // launches big enough for the rule take them, and only those loads carry the hint).
    if constexpr (sizeof(Vec<T, V>) == 16) {
      if (evict_reads_first) return launch(std::true_type{});
    }
    return launch(std::bool_constant<VEC_READ_ONCE_EVICT_FIRST>{});
  });
}

}  // namespace {{python_name}}_cuda
