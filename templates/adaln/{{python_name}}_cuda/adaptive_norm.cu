// Adaptive norm of DiT blocks (adaLN), over the last dimension of x [b, tokens,
// hidden]:
//   y = norm(x) * (1 + scale) + shift
//   norm: LayerNorm without affine, (x - mean) * rsqrt(var + eps), or
//         RMSNorm without weight, x * rsqrt(mean(x^2) + eps)
// scale and shift per sample ([b, hidden]) or per token ([b, tokens, hidden]),
// of x's dtype or float32; statistics and the modulation in float32, y
// rounded once to x's dtype. LTX-Video (diffusers transformer_ltx.py,
// LTXVideoTransformerBlock.forward) normalizes with norm1 = RMSNorm(dim,
// eps=1e-6, elementwise_affine=False), then
//   norm_hidden_states = norm_hidden_states * (1 + scale_msa) + shift_msa
// where shift_msa, scale_msa are unbind(dim=2) views of
// scale_shift_table[None, None] + temb.reshape(b, temb.size(1), 6, -1):
// rows 6 * hidden apart, one per sample (temb.size(1) == 1) or per token.
// Its final norm (norm_out, diffusers AdaLayerNorm) and DiT / PixArt's
// adaLN are LayerNorm(eps=1e-6, elementwise_affine=False) with per-sample
// shift and scale.
//
// Bytes moved (the floor): rows * hidden * sizeof(T) read + the same written
// + 2 * hidden * sizeof(W) for scale and shift once per row that needs its
// own (per token: every row; per sample: once per sample, then L1/L2 hits).
//
// Launch shape: the row plan of the norm ops (PlanRows, common/row_plan.h)
// with a budget of 4 vectors per thread (x's; per-token modulation rows of
// aligned rows are copied to shared memory with x's loads, per-sample ones
// read at the store): 4-32 lanes per row up to 32 vectors, a
// warp per row up to 128, a block per row with 1, 2 or 4 vectors per thread
// up to 2048 vectors (16384 bf16), then two passes (x re-read from L2;
// LayerNorm's statistics by Welford merges). LTX-Video's hidden 2048 bf16: a
// block per row, 256 threads of 1 vector up to 1056 rows (132 SMs x 2048
// threads at once), else 128 threads of 2 (per-token launches keep 256 of 1:
// ADALN_PER_TOKEN_BLOCK1 below). Rows that start off a 16-byte
// boundary split as in rms_norm (common/row_span.h); modulation rows that
// are misaligned where x's are not are read a scalar at a time
// (common/param_rows.h). LayerNorm reduces twice (sum, then squared
// deviations): two barriers per row with a block per row; RMSNorm once.
// Launched overlapped (common/overlap.cuh). Per-token launches whose y fits
// in half of L2 and whose traffic does not read x and the staged rows
// evict-first (common/launch.cuh's EvictReadsFirstPays; kbuild --define
// EVICT_READS_FIRST_RULE=0 turns the rule off).
//
// measured (H200, 2026-12-04, kbuild bench, bf16): RMSNorm per-token 2x6144x2048
// 48.8 us, 98% of copy, 0.97x torch.compile (results/h200-2026-12-04/run-1356).

#include "adaptive_norm.h"
#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/param_rows.h"
#include "modulated_row.cuh"

namespace {{python_name}}_cuda {
namespace {

// The register budget (x's vectors only): 4, so 4 vectors per thread at
// most; with 8 ptxas spilled the fp16 block kernel of 8-byte vectors.
constexpr int kAdaNormVecs = 4;

// When per-token modulation rows are read (kbuild --define
// ADALN_EARLY_MODULATION=0, 1 or 2; default 2). Per-token rows come from
// DRAM as x's do, so read at the store their latency follows the row's
// reduction. 1 loads them into registers with x's on aligned per-token
// launches (up to 2 vectors a thread: 4 spilled in fp16), but ptxas moves
// those loads past the row's sum of squares, which waits for x. 2 copies
// them into shared memory with cp.async beside x's loads instead (1 where
// the copy would pass 48 KB a block or a vector is under 4 bytes). Per-sample
// rows stay read at the store: they are cache hits after a sample's first
// row. H200: 1 is 2-4% faster than 0 in bf16, 2 another 0-2%; the
// alternatives measured and rejected are in docs/adaln.md.
#ifndef ADALN_EARLY_MODULATION
#define ADALN_EARLY_MODULATION 2
#endif
static_assert(ADALN_EARLY_MODULATION >= 0 && ADALN_EARLY_MODULATION <= 2,
              "ADALN_EARLY_MODULATION must be 0 (read at the store), 1 (held, per token) or 2 "
              "(staged in shared memory, per token)");
enum class ModulationRead { kAtStore = 0, kHeld = 1, kStaged = 2 };
constexpr auto kPerTokenRead = static_cast<ModulationRead>(ADALN_EARLY_MODULATION);

// Per-token launches the planner gives a block of 2 vectors a thread take a
// block of 1 vector a thread instead (kbuild --define ADALN_PER_TOKEN_BLOCK1=0
// goes back, an A/B knob). The staged kernel of 2 vectors takes 59 registers
// (RMSNorm bf16), so an SM holds 8 of its 128-thread blocks: no more rows at
// once than 8 blocks of 256 threads at 32 registers, which halve each
// thread's load -> reduce -> store chain. H100, eight rounds: 1-3% faster at
// 2688 rows and fp16 5376, never slower (docs/adaln.md). Broadcast launches
// keep 2 vectors (44-45 registers): 1 vector was 4-18% slower on them, within
// 1% at RMSNorm's 1x2688 (H100, two rounds).
#ifndef ADALN_PER_TOKEN_BLOCK1
#define ADALN_PER_TOKEN_BLOCK1 1
#endif

// Per-token rows are staged only on launches whose reads are evict-first (the
// rule below) and held in registers on the rest (kbuild --define
// ADALN_STAGE_ONLY_EVICT_FIRST=0, an A/B knob, stages them on every aligned
// launch). H100 with a block of 1 vector: at 1x2688x2048, where the rule is
// off, 1.3-2.6% faster in four rounds, the other per-token cases 0.8% faster
// to 0.4% slower; the adaln suite passes with it (docs/adaln.md).
#ifndef ADALN_STAGE_ONLY_EVICT_FIRST
#define ADALN_STAGE_ONLY_EVICT_FIRST 1
#endif

// kEvictFirst: x's and the staged rows' reads evict-first (vec.cuh), for
// launches that EvictReadsFirstPays (launch.cuh).
template <NormKind kNorm, typename T, typename W, int V, int kVecs, int kGroup, bool kSplit,
          ModulationRead kRead, bool kEvictFirst>
__global__ void __launch_bounds__(kMaxBlockThreads)
    AdaptiveNormRegisterKernel(T* __restrict__ y, const T* __restrict__ x, ParamRows scale,
                               ParamRows shift, int64_t rows, FastDivmod tokens_divisor,
                               int64_t tokens, int hidden,
                               int first_phase, int64_t x_stride, int64_t y_stride,
                               float inv_hidden, float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kGroup, kSplit>;
  __shared__ RowScratch scratch;
  const RowSlot s = CurrentRowSlot<kGroup>(rows);
  const T* x_row = x + s.row * x_stride;
  T* y_row = y + s.row * y_stride;
  const RowSpan span =
      s.valid ? SpanOf<V, kSplit>(first_phase, s.row, x_stride, hidden) : RowSpan{};
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();

  static_assert(kRead == ModulationRead::kAtStore || (!kSplit && kVecs <= 2),
                "held modulation rows: aligned launches, up to 2 vectors a thread");
  static_assert(kRead != ModulationRead::kStaged || kCopiesToShared<W, V>,
                "cp.async copies 4, 8 or 16 bytes");
  Vec<T, V> r[kVecs] = {};  // zero-init: lets ptxas keep all in registers
  HeldModulation<W, V, kVecs> held = {};
  extern __shared__ __align__(16) unsigned char staged[];  // kStaged: the rows' copies
  if constexpr (kRead == ModulationRead::kStaged) {
    // Issued before x's loads in the source: the copies wait on the row's division, x's loads
    // on nothing, so ptxas puts x's loads first and unpacks x (waiting for it) after the copies.
    if (s.valid) {
      StageModulation<W, V, kVecs, kEvictFirst>(RowOf<W>(scale, s.row, tokens_divisor, tokens),
                                   RowOf<W>(shift, s.row, tokens_divisor, tokens), s, span,
                                   staged);
    }
  }
  LoadHeldVectors<V, kSplit, kEvictFirst>(x_row, span, s.first, s.step, r);
  if constexpr (kRead == ModulationRead::kHeld) {
    LoadHeldModulation<W, V>(RowOf<W>(scale, s.row, tokens_divisor, tokens),
                             RowOf<W>(shift, s.row, tokens_divisor, tokens), s, span, held);
  }
  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, span, s.first, s.step, edges);
  // LayerNorm's sum is taken relative to the row's first element; RMSNorm ignores it.
  const float pivot = kNorm == NormKind::kLayer ? RowPivot(x_row, s.valid, hidden) : 0.f;
  const RowStats st =
      NormRegisterStats<kNorm, kGroup, V>(r, edges, s, span, pivot, inv_hidden, eps, scratch);
  if constexpr (kRead != ModulationRead::kAtStore) {
    if constexpr (kRead == ModulationRead::kStaged) {
      ReadStagedModulation<W, V, kVecs>(staged, s, span, held);
    }
    StoreHeldModulated(y_row, r, held, st, s, span);  // aligned: no edge elements
  } else {
    // The row's division by tokens a multiply-high: read after the reduction, these rows wait
    // on it (int64 `/`: per-sample 2-6% slower on the H200, docs/adaln.md).
    const W* scale_row = RowOf<W>(scale, s.row, tokens_divisor, tokens);
    const W* shift_row = RowOf<W>(shift, s.row, tokens_divisor, tokens);
    StoreModulated<kSplit>(y_row, r, st, scale_row, shift_row, s, span);
    StoreModulatedEdges<V>(y_row, edges, st, scale_row, shift_row, span, s.first, s.step);
  }
}

// Rows too long for registers: the statistics in one pass over x, then a
// second (an L2 hit: one row per block) to store. A split row's edge
// elements stay in registers between the passes.
template <NormKind kNorm, typename T, typename W, int V, bool kSplit>
__global__ void __launch_bounds__(kLoopBlockThreads)
    AdaptiveNormLoopKernel(T* __restrict__ y, const T* __restrict__ x, ParamRows scale,
                           ParamRows shift, FastDivmod tokens, int hidden, int first_phase,
                           int64_t x_stride, int64_t y_stride, float inv_hidden, float eps) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kWholeBlock, kSplit>;
  __shared__ float sum_scratch[kWarpSize];
  __shared__ Welford welford_scratch[kWarpSize];
  const int64_t row = blockIdx.x;
  const T* x_row = x + row * x_stride;
  T* y_row = y + row * y_stride;
  const RowSpan span = SpanOf<V, kSplit>(first_phase, row, x_stride, hidden);
  const int lane = threadIdx.x;
  const int lanes = blockDim.x;
  WaitForPreviousKernel();
  AllowNextKernelLaunch();
  EdgeValues<kEdgeSlots> edges;
  LoadEdges<V>(x_row, span, lane, lanes, edges);
  const RowStats st = NormLoopStats<kNorm, V, kSplit>(x_row, span, edges, lane, lanes, inv_hidden,
                                                      eps, sum_scratch, welford_scratch);
  // A block per row: row < 2^31, so the multiply-high form.
  const W* scale_row = RowOf<W>(scale, static_cast<uint32_t>(row), tokens);
  const W* shift_row = RowOf<W>(shift, static_cast<uint32_t>(row), tokens);
  ForEachLoopVector<V, kSplit>(
      x_row, span, 0, span.body, lane, lanes, [&](int idx, const Vec<T, V>& v) {
        StoreModulatedVector<kSplit>(y_row, v, idx, st, scale_row, shift_row, span);
      });
  StoreModulatedEdges<V>(y_row, edges, st, scale_row, shift_row, span, lane, lanes);
}

// Calls f(integral_constant<NormKind, K>) for the runtime norm.
template <typename F>
cudaError_t DispatchNorm(NormKind norm, F&& f) {
  switch (norm) {
    case NormKind::kLayer:
      return f(std::integral_constant<NormKind, NormKind::kLayer>{});
    case NormKind::kRms:
      return f(std::integral_constant<NormKind, NormKind::kRms>{});
  }
  return cudaErrorInvalidValue;  // supported: kLayer, kRms
}

}  // namespace

cudaError_t LaunchAdaptiveNorm(void* y, const void* x, ParamRows scale, ParamRows shift,
                               NormKind norm, DType x_dtype, DType mod_dtype, int64_t rows,
                               int64_t tokens, int64_t hidden, int64_t x_row_stride,
                               int64_t y_row_stride, float eps, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (tokens <= 0) return cudaErrorInvalidValue;
  const int elem = DTypeSize(x_dtype);
  const VectorAccess x_access{x, x_row_stride, elem};
  const VectorAccess y_access{y, y_row_stride, elem};
  RowLaunch l;
  const cudaError_t planned = PlanRowLaunch(rows, hidden, elem, {x_access, y_access},
                                            VectorAccess{nullptr, 0, elem}, &l, kAdaNormVecs);
  if (planned != cudaSuccess) return planned;
  // The modulation rows may not take the vectors x's rows do.
  const RowAccess fitted =
      FitParamRows(l.access, 16 / elem, hidden, {scale, shift}, DTypeSize(mod_dtype));
  if (fitted.vectors != l.access.vectors) {
    l.plan = PlanRows(rows, fitted.vectors, CachedSmCount(), CachedThreadsPerSm(), kAdaNormVecs);
    if (l.plan.blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  }
  l.access = fitted;
  const int row_elems = static_cast<int>(hidden);  // <= 2^30: checked above
  const bool per_token = tokens > 1 && (scale.token_stride != 0 || shift.token_stride != 0);
  if (ADALN_PER_TOKEN_BLOCK1 && per_token && l.plan.path == RowPath::kBlock2 &&
      l.access.vectors <= kMaxBlockThreads) {
    l.plan = {RowPath::kBlock1, RoundUpToWarp(l.access.vectors), rows};
  }
  const FastDivmod tokens_divisor = TokensDivisor(tokens);
  // Per token: x and both modulation rows read once, y written.
  const int64_t y_bytes = rows * hidden * elem;
  const bool evict_reads_first =
      per_token && EvictReadsFirstPays(y_bytes + 2 * rows * hidden * DTypeSize(mod_dtype), y_bytes);

  return DispatchNorm(norm, [&](auto norm_tag) {
    constexpr NormKind kNorm = decltype(norm_tag)::value;
    return DispatchRowOp(x_dtype, mod_dtype, l.access, [&](auto xt, auto wt, auto vc, auto split) {
      using T = typename decltype(xt)::type;
      using W = typename decltype(wt)::type;
      constexpr int V = decltype(vc)::value;
      constexpr bool kSplit = decltype(split)::value;
      // Named here: GCC cannot resolve W inside the nested generic lambda's `if constexpr`.
      constexpr bool kStageable = kCopiesToShared<W, V>;
      constexpr bool kWideVectors = sizeof(Vec<T, V>) == 16;
      auto* yp = static_cast<T*>(y);
      const auto* xp = static_cast<const T*>(x);
      const dim3 grid(static_cast<unsigned>(l.plan.blocks));
      return LaunchForPath<kAdaNormVecs>(
          l.plan.path,
          [&](auto vecs, auto group) {
            constexpr int kVecs = decltype(vecs)::value;
            using Read = ModulationRead;
            // The knob's hints everywhere; else only where the rule picks them (staged rows).
            constexpr std::bool_constant<VEC_READ_ONCE_EVICT_FIRST> knob;
            const auto launch = [&](auto read, size_t smem, auto evict_first) {
              return LaunchOverlappedWithSmem(
                  AdaptiveNormRegisterKernel<kNorm, T, W, V, kVecs, decltype(group)::value,
                                             kSplit, decltype(read)::value,
                                             decltype(evict_first)::value>,
                  grid, dim3(l.plan.threads), smem, stream, yp, xp, scale, shift, rows,
                  tokens_divisor, tokens, row_elems, l.access.first_phase, x_row_stride,
                  y_row_stride, l.inv_hidden, eps);
            };
            // Per-token rows held or staged: aligned launches of up to 2 vectors a thread.
            if constexpr (!kSplit && kVecs <= 2 && kPerTokenRead != Read::kAtStore) {
              if (per_token) {
                if constexpr (kPerTokenRead == Read::kStaged && kStageable) {
                  // Past the default dynamic shared memory of a block: held.
                  const size_t staged = StagedModulationBytes<W, V>(kVecs, l.plan.threads);
                  if (staged <= kDefaultDynamicSmemBytes) {
                    const std::integral_constant<Read, Read::kStaged> read;
                    // 16-byte vectors only: the launches big enough for the rule take them.
                    if constexpr (kWideVectors) {
                      if (evict_reads_first) return launch(read, staged, std::true_type{});
                    }
                    if constexpr (!ADALN_STAGE_ONLY_EVICT_FIRST) {
                      return launch(read, staged, knob);
                    }
                  }
                }
                return launch(std::integral_constant<Read, Read::kHeld>{}, 0, knob);
              }
            }
            return launch(std::integral_constant<Read, Read::kAtStore>{}, 0, knob);
          },
          [&] {
            return LaunchOverlapped(AdaptiveNormLoopKernel<kNorm, T, W, V, kSplit>, grid,
                                    dim3(l.plan.threads), stream, yp, xp, scale, shift,
                                    tokens_divisor, row_elems, l.access.first_phase,
                                    x_row_stride, y_row_stride, l.inv_hidden, eps);
          });
    });
  });
}

}  // namespace {{python_name}}_cuda
