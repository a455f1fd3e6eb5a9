// Rotary position embedding of q and k, in place, one launch for both:
//   x'[e] = x[e] * cos[e] + rotate(x)[e] * sin[e],
//   rotate(x) = (-x2, x1) for every pair (x1, x2) of a head, the pairs being
//   (i, i + d/2) (half-split: Llama / Qwen3 rotate_half) or (2i, 2i + 1)
//   (interleaved: GPT-J, LTX-Video). fp32 arithmetic, one rounding per output.
// cos / sin come from tensors (any [b|1, s, d] or per head [b|1, s, h * d],
// float32 or q's dtype), from integer positions (angle_i = pos *
// theta^(-2i/d)), or from LTX-Video's frame / height / width grid
// (diffusers LTXVideoRotaryPosEmbed: n = C / 6 frequencies theta^(j/(n-1))
// * pi / 2 over the C = heads * d channels, pair 3j + a of the unpadded
// channels rotated by freq_j * (2 * coord_a * scale_a - 1), the first C % 6
// channels left as they are). Computed angles are reduced in float64 turns
// (common/rope_angles.cuh), so large positions keep float32 accuracy.
//
// Bytes moved (the floor): q and k read and written, 2 * (hq + hk) * b * s *
// d * sizeof(T); plus cos and sin read once from DRAM (2 * their elements *
// sizeof(W): [s, d] shared tables are L2 hits after the first head) or the
// positions (8 bytes a token); nothing for the LTX grid.
//
// Launch shape: 256-thread blocks, a thread per (token, chunk of V pairs,
// slot group): V = 16 / sizeof(T) elements per vector when head_dim / 2,
// pointers and strides allow, narrower otherwise (down to scalars). A slot
// is a head index serving q head h and k head h with one angle; a thread
// takes one slot, or ROPE_SLOTS_PER_THREAD (rope_tuning.h: 4) in turn (one
// angle computation for all, unless the angles differ per head) once a slot
// per thread would exceed ROPE_GROUP_ABOVE_WAVES (1) waves of the GPU (per-head
// tables: ROPE_PER_HEAD_TABLES_GROUP_ABOVE_WAVES, 64); with
// 16-byte vectors every slot's q and k are then copied into shared memory by
// cp.async before the first is rotated (ROPE_STAGED_SLOTS, 1), so all of a
// thread's loads are in flight at once. A launch whose blocks are all
// resident at once (decode) loads a slot's q and k before storing either
// (ROPE_QK_LOADS_FIRST, 3).
// Launched overlapped (common/overlap.cuh); the float64 frequency table of a
// block is built in shared memory before the wait for the previous kernel.
//
// qk_norm_rope (common/qk_norm_rope_kernel.cuh) normalizes each head first:
// a head is d / 2 / V neighbouring lanes, 16-byte vectors only, its sum of
// squares a shuffle butterfly; the same bytes as rope plus the two weights.
// A lane takes QK_NORM_ROPE_HEADS_PER_THREAD (4) heads of a token, staged in
// shared memory, once one head a lane would exceed
// QK_NORM_ROPE_GROUP_ABOVE_WAVES (4) waves. 1x32768 tokens bf16 169 us,
// 97% of copy; 4x2048 45 us, 90% (H200, 2026-12-04, run-1944; one head a
// lane: 180 and 47 us).
//
// measured (H200, 2026-12-05; results/h200-2026-12-05/run-0239, run-1031):
// tables 1x32768x32x8x128 bf16 168.7 us, 97% of copy, 1.01x Liger; 1x2048
// 13.9 us, 0.97x Liger; decode 64x1 5.02 us, 1.01x Liger (late shared
// tables). LTX-Video's per-head tables 2x16x16x24x32x64 bf16: 93.3 us,
// 1.00x torch.compile (a slot a thread).

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/qk_norm_rope_kernel.cuh"
#include "common/rope_kernel.cuh"
#include "rope.h"
#include "rope_tuning.h"

namespace {

using namespace kernels_common;
using namespace rope_kernels;
using {{python_name}}_cuda::RopeHeads;
using {{python_name}}_cuda::RopeShape;

// The kernels split a 32-bit thread index (FastDivmod): every thread of the
// grid, up to blocks * kRopeThreads, below 2^32 (at least 2^33 vectors of q
// and k, 128 GiB, before a launch is refused).
constexpr int64_t kMaxRopeBlocks = (int64_t{1} << 32) / kRopeThreads;

// Threads in `waves` waves of the GPU at its full 2048 threads an SM: the
// unit of the ROPE_GROUP_ABOVE_WAVES and QK_NORM_ROPE_GROUP_ABOVE_WAVES
// thresholds.
int64_t ThreadsInWaves(int waves) {
  return int64_t{waves} * CachedSmCount() * CachedThreadsPerSm();
}

struct RopePlan {
  int width;  // V
  RopeGrid grid;
  int64_t blocks;
};

// The vector width every tensor allows and the thread grid. extra: the
// table tensors (nullptr pointers are skipped); threads take several head
// slots once a slot a thread would pass group_above_waves waves.
cudaError_t PlanRope(const RopeHeads& q, const RopeHeads& k, const RopeShape& shape, int elem_bytes,
                     std::initializer_list<VectorAccess> extra, RopePlan* out,
                     int group_above_waves = rope_tuning::kGroupAboveWaves) {
  if (shape.batch <= 0 || shape.seq <= 0 || shape.head_dim <= 0 || shape.head_dim % 2 != 0 ||
      shape.head_dim > 2 * PositionAngles::kTurns || q.heads <= 0 || k.heads <= 0 ||
      q.heads > (1 << 16) || k.heads > (1 << 16)) {
    return cudaErrorInvalidValue;
  }
  const int half = static_cast<int>(shape.head_dim / 2);
  const int max_width = 16 / elem_bytes;
  out->width = std::min({PickVectorWidth(max_width, half,
                                         {{q.ptr, q.batch_stride, elem_bytes},
                                          {q.ptr, q.seq_stride, elem_bytes},
                                          {q.ptr, q.head_stride, elem_bytes},
                                          {k.ptr, k.batch_stride, elem_bytes},
                                          {k.ptr, k.seq_stride, elem_bytes},
                                          {k.ptr, k.head_stride, elem_bytes}}),
                         PickVectorWidth(max_width, half, extra)});
  RopeGrid& g = out->grid;
  g.half = half;
  const int chunks = half / out->width;
  g.slots = static_cast<int>(std::max(q.heads, k.heads));
  const int64_t tokens = shape.batch * shape.seq;
  const int64_t group_above = ThreadsInWaves(group_above_waves);
  const int groups =
      tokens * chunks * g.slots > group_above
          ? (g.slots + rope_tuning::kSlotsPerThread - 1) / rope_tuning::kSlotsPerThread
          : g.slots;
  g.threads = tokens * groups * chunks;
  out->blocks = (g.threads + kRopeThreads - 1) / kRopeThreads;
  if (out->blocks > kMaxRopeBlocks) return cudaErrorInvalidConfiguration;
  g.seq = FastDivmod(static_cast<uint32_t>(shape.seq));
  g.chunks = FastDivmod(static_cast<uint32_t>(chunks));
  g.groups = FastDivmod(static_cast<uint32_t>(groups));
  return cudaSuccess;
}

template <typename T>
HeadRows<T> RowsOf(const RopeHeads& h) {
  return {static_cast<T*>(h.ptr), h.batch_stride, h.seq_stride, h.head_stride,
          static_cast<int>(h.heads)};
}

// Launches RopeKernel for the plan's width and the pairing. kHalfSplit:
// whether the source supports half-split pairs (LTX-Video does not);
// kLoadsFirst: when the kernel takes RopeKernel's kQkLoadsFirst (rope_tuning.h).
// kWhenResident takes it only where every block is resident at once: there
// its registers cost nothing and k's loads no longer wait behind q's stores;
// at more blocks they cost the occupancy that hides the stores (it reads a
// table every head shares after q and k: ROPE_LATE_SHARED_TABLES).
// Only 16-byte vectors get the second kernel, to bound the build.
template <typename T, bool kHalfSplit = true,
          rope_tuning::LoadsFirst kLoadsFirst = rope_tuning::kLoadsFirstOtherwise, typename Angles>
cudaError_t LaunchRope(const RopePlan& p, const RopeHeads& q, const RopeHeads& k, bool interleaved,
                       const Angles& angles, cudaStream_t stream) {
  using rope_tuning::LoadsFirst;
  return DispatchVectorWidth<T>(p.width, [&](auto vc) -> cudaError_t {
    constexpr int V = decltype(vc)::value;
    const auto launch = [&](auto pairing) -> cudaError_t {
      constexpr bool kInterleaved = decltype(pairing)::value;
      constexpr bool kHalves = kInterleaved && rope_tuning::kInterleavedHalves;
      constexpr int kMinBlocks = rope_tuning::kMinBlocks;
      constexpr auto kStoresBetween = RopeKernel<T, V, kInterleaved, Angles, kMinBlocks, kHalves,
                                                 kLoadsFirst == LoadsFirst::kAlways>;
      auto kernel = kStoresBetween;
      size_t smem = 0;
      if constexpr (kLoadsFirst != LoadsFirst::kAlways && rope_tuning::kStagedSlots &&
                    V == 16 / sizeof(T)) {
        const int groups = static_cast<int>(p.grid.groups.divisor);
        const size_t staged = StagedSlotBytes<T, V>(q.heads, k.heads, groups);
        if (groups < p.grid.slots && staged <= kDefaultDynamicSmemBytes) {
          kernel = RopeKernel<T, V, kInterleaved, Angles, kMinBlocks, kHalves, false, true>;
          smem = staged;
        }
      }
      if constexpr (kLoadsFirst == LoadsFirst::kWhenResident && V == 16 / sizeof(T)) {
        constexpr auto kFirst =
            RopeKernel<T, V, kInterleaved, Angles, kMinBlocks, kHalves, true, false,
                       Angles::kComputed || rope_tuning::kLateSharedTables>;
        const int64_t resident =
            int64_t{CachedResidentBlocksPerSm<kFirst, kRopeThreads>()} * CachedSmCount();
        if (smem == 0 && p.blocks <= resident) kernel = kFirst;
      }
      return LaunchOverlappedWithSmem(kernel, dim3(static_cast<unsigned>(p.blocks)),
                                      dim3(kRopeThreads), smem, stream, RowsOf<T>(q),
                                      RowsOf<T>(k), p.grid, angles);
    };
    if (interleaved) return launch(std::true_type{});
    if constexpr (kHalfSplit) {
      return launch(std::false_type{});
    } else {
      return cudaErrorInvalidValue;  // this source is interleaved only
    }
  });
}

// The fused QK-norm + rope's plan: 16-byte vectors everywhere (q, k, the
// tables and the weights) and a head_dim QkNormRopeSupported takes, else
// cudaErrorInvalidValue (the binding says which).
// *heads_per_thread (the kernel's kHeads): rope_tuning::kQkNormHeadsPerThread
// for launches above kQkNormGroupAboveWaves waves when `may_group`, else 1.
cudaError_t PlanQkNormRope(const RopeHeads& q, const RopeHeads& k, const RopeShape& shape,
                           DType dtype, std::initializer_list<VectorAccess> extra, bool may_group,
                           QkNormRopeGrid* grid, int64_t* blocks, int* heads_per_thread) {
  const int elem_bytes = DTypeSize(dtype);
  RopePlan plan;
  const cudaError_t planned = PlanRope(q, k, shape, elem_bytes, extra, &plan);
  if (planned != cudaSuccess) return planned;
  if (plan.width != 16 / elem_bytes ||
      !{{python_name}}_cuda::QkNormRopeSupported(shape.head_dim, dtype)) {
    return cudaErrorInvalidValue;
  }
  const int chunks = static_cast<int>(plan.grid.chunks.divisor);
  int chunk_shift = 0;
  while ((1 << chunk_shift) < chunks) ++chunk_shift;  // a power of two (QkNormRopeSupported)
  const int64_t one_head_threads = shape.batch * shape.seq * (q.heads + k.heads) * chunks;
  const int64_t group_above = ThreadsInWaves(rope_tuning::kQkNormGroupAboveWaves);
  const int heads = may_group && one_head_threads > group_above
                        ? rope_tuning::kQkNormHeadsPerThread
                        : 1;
  *heads_per_thread = heads;
  const int q_groups = static_cast<int>((q.heads + heads - 1) / heads);
  const int k_groups = static_cast<int>((k.heads + heads - 1) / heads);
  *grid = {shape.batch * shape.seq * (q_groups + k_groups),
           FastDivmod(static_cast<uint32_t>(shape.seq)),
           FastDivmod(static_cast<uint32_t>(q_groups + k_groups)),
           q_groups,
           chunks,
           chunk_shift,
           1.f / static_cast<float>(shape.head_dim),
           0.f};
  *blocks = (grid->rows * chunks + kRopeThreads - 1) / kRopeThreads;
  return *blocks > kMaxRopeBlocks ? cudaErrorInvalidConfiguration : cudaSuccess;
}

}  // namespace

namespace {{python_name}}_cuda {

bool QkNormRopeSupported(int64_t head_dim, DType dtype) {
  const int64_t chunks = head_dim / 2 / (16 / DTypeSize(dtype));
  return head_dim % (2 * (16 / DTypeSize(dtype))) == 0 && chunks >= 1 &&
         chunks <= kernels_common::kWarpSize && (chunks & (chunks - 1)) == 0;
}

cudaError_t LaunchQkNormRope(RopeHeads q, RopeHeads k, RopeShape shape, DType dtype,
                             RopeTable table, const void* q_weight, const void* k_weight,
                             DType weight_dtype, float eps, cudaStream_t stream,
                             const KCache* k_cache) {
  if (q_weight == nullptr || k_weight == nullptr || !(eps >= 0.f)) return cudaErrorInvalidValue;
  if (k_cache != nullptr &&
      (k_cache->first_slot == nullptr || k_cache->rows.heads != k.heads || k_cache->slots < 0)) {
    return cudaErrorInvalidValue;
  }
  const int table_elem = DTypeSize(table.dtype);
  const int weight_elem = DTypeSize(weight_dtype);
  // The cache's rows take 16-byte vectors too (nullptr: no cache, skipped).
  const RopeHeads cache_rows = k_cache != nullptr ? k_cache->rows : RopeHeads{};
  const int elem = DTypeSize(dtype);
  QkNormRopeGrid grid;
  int64_t blocks = 0;
  int heads_per_thread = 1;
  // One head a thread for the cache write (a decode step's few tokens) and
  // for per-head tables (a table a head).
  const cudaError_t planned =
      PlanQkNormRope(q, k, shape, dtype,
                     {{table.cos, table.batch_stride, table_elem},
                      {table.cos, table.seq_stride, table_elem},
                      {table.cos, table.head_stride, table_elem},
                      {table.sin, table.batch_stride, table_elem},
                      {table.sin, table.seq_stride, table_elem},
                      {table.sin, table.head_stride, table_elem},
                      {q_weight, 0, weight_elem},
                      {k_weight, 0, weight_elem},
                      {cache_rows.ptr, cache_rows.batch_stride, elem},
                      {cache_rows.ptr, cache_rows.seq_stride, elem},
                      {cache_rows.ptr, cache_rows.head_stride, elem}},
                     k_cache == nullptr && table.head_stride == 0, &grid, &blocks,
                     &heads_per_thread);
  if (planned != cudaSuccess) return planned;
  grid.eps = eps;
  return DispatchInputParam(dtype, table.dtype, [&](auto xt, auto wt) {
    using T = typename decltype(xt)::type;
    using W = typename decltype(wt)::type;
    const TableAngles<W> angles{static_cast<const W*>(table.cos), static_cast<const W*>(table.sin),
                                table.batch_stride, table.seq_stride, table.head_stride};
    return DispatchInputParam(dtype, weight_dtype, [&](auto, auto nt) {
      using N = typename decltype(nt)::type;
      constexpr int V = 16 / sizeof(T);
      constexpr int kMinBlocks = rope_tuning::kQkNormMinBlocks;
      const dim3 launch_grid(static_cast<unsigned>(blocks));
      const auto q_w = static_cast<const N*>(q_weight);
      const auto k_w = static_cast<const N*>(k_weight);
      if (k_cache != nullptr) {
        const KCacheRows<T> cache{RowsOf<T>(k_cache->rows), k_cache->first_slot, k_cache->slots};
        const auto kernel = shape.interleaved
                                ? QkNormRopeKernel<T, N, W, V, true, 1, kMinBlocks, true>
                                : QkNormRopeKernel<T, N, W, V, false, 1, kMinBlocks, true>;
        return LaunchOverlapped(kernel, launch_grid, dim3(kRopeThreads), stream, RowsOf<T>(q),
                                RowsOf<T>(k), q_w, k_w, grid, angles, cache);
      }
      const auto pick = [&](auto heads) {
        constexpr int kHeads = decltype(heads)::value;
        return shape.interleaved ? QkNormRopeKernel<T, N, W, V, true, kHeads, kMinBlocks>
                                 : QkNormRopeKernel<T, N, W, V, false, kHeads, kMinBlocks>;
      };
      const auto kernel =
          heads_per_thread == 1
              ? pick(std::integral_constant<int, 1>{})
              : pick(std::integral_constant<int, rope_tuning::kQkNormHeadsPerThread>{});
      return LaunchOverlapped(kernel, launch_grid, dim3(kRopeThreads), stream, RowsOf<T>(q),
                              RowsOf<T>(k), q_w, k_w, grid, angles, KCacheRows<T>{});
    });
  });
}

cudaError_t LaunchRopeTable(RopeHeads q, RopeHeads k, RopeShape shape, DType dtype, RopeTable table,
                            cudaStream_t stream) {
  const int table_elem = DTypeSize(table.dtype);
  const bool per_head = table.head_stride != 0;  // LTX-Video's tables
  RopePlan plan;
  const cudaError_t planned = PlanRope(q, k, shape, DTypeSize(dtype),
                                       {{table.cos, table.batch_stride, table_elem},
                                        {table.cos, table.seq_stride, table_elem},
                                        {table.cos, table.head_stride, table_elem},
                                        {table.sin, table.batch_stride, table_elem},
                                        {table.sin, table.seq_stride, table_elem},
                                        {table.sin, table.head_stride, table_elem}},
                                       &plan,
                                       per_head ? rope_tuning::kPerHeadTablesGroupAboveWaves
                                                : rope_tuning::kGroupAboveWaves);
  if (planned != cudaSuccess) return planned;
  return DispatchInputParam(dtype, table.dtype, [&](auto xt, auto wt) {
    using T = typename decltype(xt)::type;
    using W = typename decltype(wt)::type;
    const TableAngles<W> angles{static_cast<const W*>(table.cos), static_cast<const W*>(table.sin),
                                table.batch_stride, table.seq_stride, table.head_stride};
    if (per_head) {
      return LaunchRope<T, true, rope_tuning::kLoadsFirstPerHeadTables>(
          plan, q, k, shape.interleaved, angles, stream);
    }
    return LaunchRope<T>(plan, q, k, shape.interleaved, angles, stream);
  });
}

cudaError_t LaunchRopePositions(RopeHeads q, RopeHeads k, RopeShape shape, DType dtype,
                                const int64_t* positions, int64_t positions_batch_stride,
                                double theta, cudaStream_t stream) {
  if (positions == nullptr || !(theta > 1.0)) return cudaErrorInvalidValue;
  RopePlan plan;
  const cudaError_t planned = PlanRope(q, k, shape, DTypeSize(dtype), {}, &plan);
  if (planned != cudaSuccess) return planned;
  const PositionAngles angles{positions, positions_batch_stride, plan.grid.half, std::log2(theta)};
  return DispatchDtype(dtype, [&](auto xt) {
    using T = typename decltype(xt)::type;
    return LaunchRope<T>(plan, q, k, shape.interleaved, angles, stream);
  });
}

cudaError_t LaunchRopeLtxVideo(RopeHeads q, RopeHeads k, RopeShape shape, DType dtype,
                               int64_t frames, int64_t height, int64_t width,
                               const double (&coord_scale)[3], double theta, cudaStream_t stream) {
  const int64_t channels = q.heads * shape.head_dim;
  if (!shape.interleaved || k.heads != q.heads || !(theta > 1.0) || frames <= 0 || height <= 0 ||
      width <= 0 || height > (1 << 30) || width > (1 << 30) ||
      frames * height * width != shape.seq || channels < 6 ||
      channels / 6 > LtxVideoAngles::kTurns) {
    return cudaErrorInvalidValue;
  }
  RopePlan plan;
  const cudaError_t planned = PlanRope(q, k, shape, DTypeSize(dtype), {}, &plan);
  if (planned != cudaSuccess) return planned;
  const LtxVideoAngles angles{static_cast<int>(height),
                              static_cast<int>(width),
                              plan.grid.half,
                              static_cast<int>(channels / 6),
                              static_cast<int>(channels % 6 / 2),
                              {coord_scale[0], coord_scale[1], coord_scale[2]},
                              std::log2(theta)};
  return DispatchDtype(dtype, [&](auto xt) {
    using T = typename decltype(xt)::type;
    return LaunchRope<T, false>(plan, q, k, true, angles, stream);
  });
}

}  // namespace {{python_name}}_cuda
