// Naive RMSNorm, the start of kbuild optimize's acceptance runs
// (tools/optimize_acceptance/README.md): y = x * rsqrt(mean(x^2) + eps) * w
// over rows of `hidden` elements, fp32 accumulation.
//
// Bytes moved: rows * hidden * sizeof(T) read twice (pass 2 re-reads x, from
// L1/L2 when the row is still there) + the same written + the weight, read
// again for every row (from cache).
//
// Launch shape, three macros (kbuild.toml [tune.params] lists the values the
// builtin proposer moves over; --define sets any of them):
//   NAIVE_LANES  threads per row: a power of two, 1 (default) to 1024, and
//                never more than the row has loads (rounded up to a power of
//                two). Up to 32 lanes a warp holds 32 / lanes rows, which sum
//                with shuffles; more lanes span lanes / 32 warps of one
//                block, which sum with shuffles and then across the warps
//                (one float per warp in shared memory, one __syncthreads)
//   NAIVE_VEC    elements per load: 1 (default), 2, 4 or 8, at most 16 bytes
//                (fp32: 4); one element per load when x, y, the weight or the
//                row strides are not aligned to it, or hidden is not a
//                multiple of it
//   NAIVE_BLOCK  threads per block: 128 (default), whole warps up to 1024,
//                rounded down to whole rows of NAIVE_LANES lanes; when
//                NAIVE_LANES is larger the block is NAIVE_LANES threads, one
//                row per block (kBlockThreads)
// The grid is ceil(rows * lanes / block threads) blocks along x: more than
// 65,535 rows fit, past 2^31 - 1 blocks the launcher returns
// cudaErrorInvalidConfiguration, rows = 0 launches nothing.
// Pass 1 sums the squares of the row; pass 2 re-reads x backwards (what
// pass 1 read last is the likeliest still cached) and writes y; each loop
// unrolled by 4. The defaults are the naive start: one thread per row,
// scalar loads.
// Measured (H200, 2026-12-02, lanes 1-32 only): the best point, 32 lanes,
// 8-wide loads, blocks of 128, reached 78.1% of the template's geomean time
// (59.3 us vs 46.4 us over its seven bf16 cases; the default: 1380 us).
//
// ACCEPTANCE_FAULT_* hooks: make_projects.sh prepends one #define to this
// file to make each faulty candidate; the naive project defines none.

#include <cstdint>
#include <type_traits>

#include "common/launch.cuh"
#include "common/reduce.cuh"
#include "common/vec.cuh"
#include "rms_norm.h"

#ifndef NAIVE_LANES
#define NAIVE_LANES 1
#endif
#ifndef NAIVE_VEC
#define NAIVE_VEC 1
#endif
#ifndef NAIVE_BLOCK
#define NAIVE_BLOCK 128
#endif

static_assert(NAIVE_LANES >= 1 && NAIVE_LANES <= 1024 && (NAIVE_LANES & (NAIVE_LANES - 1)) == 0,
              "NAIVE_LANES must be a power of two, 1-1024");
static_assert(NAIVE_VEC == 1 || NAIVE_VEC == 2 || NAIVE_VEC == 4 || NAIVE_VEC == 8,
              "NAIVE_VEC must be 1, 2, 4 or 8");
static_assert(NAIVE_BLOCK >= 32 && NAIVE_BLOCK <= 1024 && NAIVE_BLOCK % 32 == 0,
              "NAIVE_BLOCK must be whole warps, 32-1024");

namespace {

using namespace kernels_common;

// Threads per block: NAIVE_BLOCK in whole rows of NAIVE_LANES lanes, at least
// one row. A row's lanes (a power of two up to NAIVE_LANES) then always lie
// in one block, and up to 32 lanes in one warp.
constexpr int kBlockThreads =
    NAIVE_BLOCK >= NAIVE_LANES ? NAIVE_BLOCK / NAIVE_LANES * NAIVE_LANES : NAIVE_LANES;
static_assert(kBlockThreads % kWarpSize == 0 && kBlockThreads <= 1024,
              "kBlockThreads must be whole warps, at most 1024");

// Vector k of a row (elements k * V to k * V + V - 1) as floats: one load of
// V * sizeof(T) bytes (the caller checked the alignment).
template <typename T, int V>
__device__ __forceinline__ void LoadFloats(const T* row, int64_t k, float (&out)[V]) {
  const Vec<T, V> v = reinterpret_cast<const Vec<T, V>*>(row)[k];
#pragma unroll
  for (int i = 0; i < V; ++i) out[i] = v.Get(i);
}

// 2^log2_lanes threads per row, V elements per load, kBlockThreads threads
// per block (a multiple of the row's lanes).
template <typename T, typename W, int V>
__global__ void __launch_bounds__(kBlockThreads, 1)
    NaiveRmsNormKernel(T* __restrict__ y, const T* __restrict__ x, const W* __restrict__ w,
                       int64_t rows, int64_t hidden, int64_t x_stride, int64_t y_stride,
                       int log2_lanes, float inv_hidden, float eps) {
#ifdef ACCEPTANCE_FAULT_HANG
  for (;;) __nanosleep(1000);  // never finishes
#endif
  const int lanes = 1 << log2_lanes;
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t row = thread >> log2_lanes;
  const int lane = static_cast<int>(thread & (lanes - 1));
  const int64_t vectors = hidden / V;  // V divides hidden (the launcher checked)
  // Lanes past the last row still take part in the shuffles (and the
  // barrier), with 0.
  const bool active = row < rows;
  const T* x_row = x + row * x_stride;
  T* y_row = y + row * y_stride;
#ifdef ACCEPTANCE_FAULT_CRASH
  y_row += int64_t{1} << 40;  // stores 2^40 elements past y: an illegal address
#endif

  float sum = 0.f;
#pragma unroll 4
  for (int64_t k = lane; active && k < vectors; k += lanes) {
    float v[V];
    LoadFloats<T, V>(x_row, k, v);
#pragma unroll
    for (int i = 0; i < V; ++i) sum += v[i] * v[i];
  }
  // Within a warp: the row's lanes, or the whole warp when the row spans warps.
  const int warp_lanes = lanes < kWarpSize ? lanes : kWarpSize;
  for (int offset = warp_lanes / 2; offset > 0; offset /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, offset, warp_lanes);
  }
  if constexpr (NAIVE_LANES > kWarpSize) {
    // Across the row's warps: one partial per warp, one barrier (no thread
    // of the block has returned yet), then each warp of the row sums the
    // row's partials itself. `lanes` is the same for the whole block.
    __shared__ float partials[kBlockThreads / kWarpSize];
    if (lanes > kWarpSize) {
      const int warp = threadIdx.x / kWarpSize;
      const int warp_lane = threadIdx.x % kWarpSize;
      const int row_warps = lanes / kWarpSize;
      if (warp_lane == 0) partials[warp] = sum;
      __syncthreads();
      const int first_warp = warp & ~(row_warps - 1);
      sum = GroupSum<kWarpSize>(warp_lane < row_warps ? partials[first_warp + warp_lane] : 0.f);
    }
  }
  if (!active || lane >= vectors) return;
#ifdef ACCEPTANCE_FAULT_COMPILE
  const float scale = rsqrtf(sum * inv_hidden + epsilon);  // no such name: does not compile
#else
  const float scale = rsqrtf(sum * inv_hidden + eps);
#endif

  // Backwards: this lane's last vector first.
#pragma unroll 4
  for (int64_t k = lane + (vectors - 1 - lane) / lanes * lanes; k >= lane; k -= lanes) {
    float v[V];
    float wv[V];
    LoadFloats<T, V>(x_row, k, v);
    if (w != nullptr) {
      LoadFloats<W, V>(w, k, wv);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) wv[i] = 1.f;
    }
#ifdef ACCEPTANCE_FAULT_WRONG
    for (int i = 0; i < V; ++i) wv[i] = 1.f;  // the weight left out: a wrong result
#endif
    Vec<T, V> out;
#pragma unroll
    for (int i = 0; i < V; ++i) out.Set(i, v[i] * scale * wv[i]);
    reinterpret_cast<Vec<T, V>*>(y_row)[k] = out;
  }
}

bool Aligned(const void* p, int bytes) {
  return p == nullptr || reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(bytes) == 0;
}

// log2 of a row's lanes: NAIVE_LANES, or fewer when the row has fewer loads
// (rounded up to a power of two).
int Log2RowLanes(int64_t hidden, int vec) {
  const int64_t loads = (hidden + vec - 1) / vec;
  int log2_lanes = 0;
  while ((1 << log2_lanes) < NAIVE_LANES && (int64_t{1} << log2_lanes) < loads) ++log2_lanes;
  return log2_lanes;
}

#ifdef ACCEPTANCE_FAULT_STALE
// A cheat: once the same input has come 16 times in a row (a benchmark's
// loop, never a test's three trials), nothing is launched and the output
// keeps what its memory held: the last result, when the allocator hands the
// same block back. The benchmark's checks with poisoned outputs must see it.
bool SeenTooOften(const void* x, int64_t rows, int64_t hidden, DType dtype) {
  struct Key {
    const void* x;
    int64_t rows, hidden;
    DType dtype;
  };
  static Key last{};
  static int repeats = 0;
  const bool same =
      x == last.x && rows == last.rows && hidden == last.hidden && dtype == last.dtype;
  repeats = same ? repeats + 1 : 0;
  last = {x, rows, hidden, dtype};
  return repeats >= 16;
}
#endif

}  // namespace

namespace naive_rmsnorm_cuda {

cudaError_t LaunchRmsNorm(void* y, const void* x, const void* weight, DType x_dtype,
                          DType weight_dtype, int64_t rows, int64_t hidden, int64_t x_row_stride,
                          int64_t y_row_stride, float eps, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (rows < 0 || hidden <= 0) return cudaErrorInvalidValue;
#ifdef ACCEPTANCE_FAULT_STALE
  if (SeenTooOften(x, rows, hidden, x_dtype)) return cudaSuccess;
#endif
  // Without a weight the weight type follows x (nullptr is never read).
  if (weight == nullptr) weight_dtype = x_dtype;
  const float inv_hidden = 1.f / static_cast<float>(hidden);

  return DispatchInputParam(x_dtype, weight_dtype, [&](auto xt, auto wt) {
    using T = typename decltype(xt)::type;
    using W = typename decltype(wt)::type;
    auto launch = [&](auto vc) {
      constexpr int V = decltype(vc)::value;
      const int log2_lanes = Log2RowLanes(hidden, V);
      const int64_t blocks = ((rows << log2_lanes) + kBlockThreads - 1) / kBlockThreads;
      if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
      NaiveRmsNormKernel<T, W, V><<<static_cast<unsigned>(blocks), kBlockThreads, 0, stream>>>(
          static_cast<T*>(y), static_cast<const T*>(x), static_cast<const W*>(weight), rows, hidden,
          x_row_stride, y_row_stride, log2_lanes, inv_hidden, eps);
      return cudaGetLastError();
    };
    constexpr int kVec = NAIVE_VEC * sizeof(T) <= 16 ? NAIVE_VEC : 16 / sizeof(T);
    const bool vectors = hidden % kVec == 0 && x_row_stride % kVec == 0 &&
                         y_row_stride % kVec == 0 && Aligned(x, kVec * sizeof(T)) &&
                         Aligned(y, kVec * sizeof(T)) && Aligned(weight, kVec * sizeof(W));
    return vectors ? launch(std::integral_constant<int, kVec>{})
                   : launch(std::integral_constant<int, 1>{});
  });
}

}  // namespace naive_rmsnorm_cuda
