// The tiled GEMM (M > 16) with the Linear + bias + GELU epilogue:
// C[M, N] = gelu_tanh(A[M, K] @ B[K, N] + bias), one block per tile of C.
//
// A block walks K in stages of BK: it stages an A tile (stored transposed,
// padded) and a B tile in shared memory, two buffers, the next stage's
// global loads held in registers while the current one is multiplied, one
// __syncthreads per stage; fragments are read one k ahead of their FFMAs
// (two register sets). Each output is one FMA chain over K, or partial sums
// over KCHUNK stages. 16-byte loads and stores when A and B are 16-byte
// aligned and K, N, lda, ldb are multiples of 4 (edge tiles then read whole
// vectors or zeros); otherwise checked scalar loads and stores. The grid is
// one-dimensional, walked in groups of GROUP_M tile rows (TileOfBlock).
//
// ptxas (CUDA 13.0, sm_90a), no spills, two blocks (16 warps) per SM: the
// default tile (128 x 128 x 8, 8 x 8 per lane) 128 registers (124 in the
// scalar form), 16.6 KB of shared memory; the small tile (64 x 128 x 16,
// 4 x 8, KCHUNK 4) 127, 24.5 KB. A default stage (8 k) in SASS: 512 FFMA,
// 32 LDS.128, 2 LDG.128, 5 STS, 1 BAR, ~50 others (FFMA 85%).
#pragma once

#include <type_traits>

#include "common/overlap.cuh"
#include "common/vec.cuh"
#include "gelu.cuh"
#include "gemm_plan.h"

namespace linear_gelu_cuda {
namespace tiled {

using kernels_common::AllowNextKernelLaunch;
using kernels_common::WaitForPreviousKernel;
using F4 = kernels_common::Vec<float, 4>;

// Four adjacent floats at `at`, of which `inside` (may be <= 0 or > 4) lie
// inside the matrix: one 16-byte load (kVector: then `inside` is a multiple
// of 4, the vector wholly inside or outside) or four checked scalar loads;
// zeros outside, and nothing at all when the row is outside.
template <bool kVector>
__device__ __forceinline__ void LoadFour(const float* at, bool row_inside, int inside,
                                         float (&out)[4]) {
  if constexpr (kVector) {
    const F4 v = row_inside && inside > 0 ? *reinterpret_cast<const F4*>(at) : F4{};
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = v.v[i];
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = row_inside && i < inside ? at[i] : 0.f;
  }
}

// This thread's share of one stage's global loads: kALoads vectors of the
// A tile (BM x BK) and kBLoads of the B tile (BK x BN). Vector l is
// v = threadIdx.x + l * threads of its tile in row-major order, 4 columns
// each, so a warp reads whole rows of the tile. The pointers start at the
// first stage and move one stage per Advance(); `k_left` (K minus the
// stage's first k) bounds the K side, the fixed row / column flags the M / N
// side. Outside the matrices: zeros.
template <typename G, bool kVector>
struct StageLoader {
  static constexpr int kAPerRow = G::kBK / 4;
  static constexpr int kBPerRow = G::kBN / 4;
  const float* a_at[G::kALoads];
  const float* b_at[G::kBLoads];
  bool a_row_inside[G::kALoads];
  int b_cols_left[G::kBLoads];  // columns of B from this vector's first to N
  int64_t b_step;               // BK rows of B

  __device__ __forceinline__ StageLoader(const float* a, const float* b, int64_t row0,
                                         int64_t col0, int m, int n, int64_t lda, int64_t ldb)
      : b_step(G::kBK * ldb) {
#pragma unroll
    for (int l = 0; l < G::kALoads; ++l) {
      const int v = threadIdx.x + l * G::kThreads;
      const int64_t row = row0 + v / kAPerRow;
      a_row_inside[l] = row < m;
      a_at[l] = a + (a_row_inside[l] ? row : 0) * lda + v % kAPerRow * 4;
    }
#pragma unroll
    for (int l = 0; l < G::kBLoads; ++l) {
      const int v = threadIdx.x + l * G::kThreads;
      const int64_t col = col0 + v % kBPerRow * 4;
      b_cols_left[l] = static_cast<int>(n - col < 0 ? 0 : n - col);
      b_at[l] = b + static_cast<int64_t>(v / kBPerRow) * ldb +
                (col < n ? col : 0);
    }
  }

  __device__ __forceinline__ void Load(int k_left, float (&a_regs)[G::kALoads][4],
                                       float (&b_regs)[G::kBLoads][4]) const {
#pragma unroll
    for (int l = 0; l < G::kALoads; ++l) {
      const int col = (threadIdx.x + l * G::kThreads) % kAPerRow * 4;
      LoadFour<kVector>(a_at[l], a_row_inside[l], k_left - col, a_regs[l]);
    }
#pragma unroll
    for (int l = 0; l < G::kBLoads; ++l) {
      const int row = (threadIdx.x + l * G::kThreads) / kBPerRow;
      LoadFour<kVector>(b_at[l], row < k_left, b_cols_left[l], b_regs[l]);
    }
  }

  __device__ __forceinline__ void Advance() {
#pragma unroll
    for (int l = 0; l < G::kALoads; ++l) a_at[l] += G::kBK;
#pragma unroll
    for (int l = 0; l < G::kBLoads; ++l) b_at[l] += b_step;
  }
};

// A transposed: a_tile[kk][row], so a thread's rows for one kk are adjacent.
template <typename G>
__device__ __forceinline__ void StoreATile(float (*a_tile)[G::kAStride],
                                           const float (&regs)[G::kALoads][4]) {
  constexpr int kPerRow = G::kBK / 4;
#pragma unroll
  for (int l = 0; l < G::kALoads; ++l) {
    const int v = threadIdx.x + l * G::kThreads;
#pragma unroll
    for (int i = 0; i < 4; ++i) a_tile[v % kPerRow * 4 + i][v / kPerRow] = regs[l][i];
  }
}

template <typename G>
__device__ __forceinline__ void StoreBTile(float (*b_tile)[G::kBN],
                                           const float (&regs)[G::kBLoads][4]) {
  constexpr int kPerRow = G::kBN / 4;
#pragma unroll
  for (int l = 0; l < G::kBLoads; ++l) {
    const int v = threadIdx.x + l * G::kThreads;
    F4 f;
#pragma unroll
    for (int i = 0; i < 4; ++i) f.v[i] = regs[l][i];
    *reinterpret_cast<F4*>(&b_tile[v / kPerRow][v % kPerRow * 4]) = f;
  }
}

// Lane l's g-th group of 4 rows (columns) of the warp tile: a warp's
// lanes read adjacent 16-byte vectors (kLanes of them, 128 bytes at most:
// one shared-memory wavefront, lanes on the same vector share it), the next
// group 4 * kLanes floats further. `smem_row` points at the lane's first
// vector.
template <int kCount, int kLanes>
__device__ __forceinline__ void ReadFragment(const float* smem_row, float (&frag)[kCount]) {
#pragma unroll
  for (int g = 0; g < kCount / 4; ++g) {
    const F4 v = *reinterpret_cast<const F4*>(smem_row + g * 4 * kLanes);
#pragma unroll
    for (int i = 0; i < 4; ++i) frag[g * 4 + i] = v.v[i];
  }
}

// Row kk of the staged A^T and B tiles -> this lane's TM + TN fragment
// values (see ReadFragment).
template <typename G>
__device__ __forceinline__ void ReadFragments(const float* a_row, const float* b_row,
                                              float (&af)[G::kTM], float (&bf)[G::kTN]) {
  ReadFragment<G::kTM, G::kLanesM>(a_row, af);
  ReadFragment<G::kTN, G::kLanesN>(b_row, bf);
}

// One block per tile of C under the tile shape G (gemm_plan.h's GemmTileOf).
template <typename G, bool kVector>
__global__ void __launch_bounds__(G::kThreads, G::kMinBlocksPerSm)
    GemmKernel(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
               const float* __restrict__ bias, int m, int n, int k, int64_t lda, int64_t ldb,
               int64_t tiles_m, int64_t tiles_n) {
  alignas(16) __shared__ float a_tile[2][G::kBK][G::kAStride];
  alignas(16) __shared__ float b_tile[2][G::kBK][G::kBN];
  const TileIndex tile = TileOfBlock<G>(blockIdx.x, tiles_m, tiles_n);
  const int64_t row0 = tile.m * G::kBM;
  const int64_t col0 = tile.n * G::kBN;
  // This lane's first row and column within the block tile (gemm_plan.h).
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int lane_m = warp / G::kWarpsN * G::kWM + lane / G::kLanesN * 4;
  const int lane_n = warp % G::kWarpsN * G::kWN + lane % G::kLanesN * 4;

  WaitForPreviousKernel();
  AllowNextKernelLaunch();

  float total[G::kTM][G::kTN] = {};
  // With KCHUNK > 0 the FFMAs go to `partial`, which joins `total`
  // every kKChunk stages.
  float partial[G::kTM][G::kTN] = {};
  float af[2][G::kTM];
  float bf[2][G::kTN];
  float a_next[G::kALoads][4];
  float b_next[G::kBLoads][4];
  StageLoader<G, kVector> loader(a, b, row0, col0, m, n, lda, ldb);
  const int stages = (k + G::kBK - 1) / G::kBK;
  if (stages > 0) {
    loader.Load(k, a_next, b_next);
    StoreATile<G>(a_tile[0], a_next);
    StoreBTile<G>(b_tile[0], b_next);
    __syncthreads();
    ReadFragments<G>(&a_tile[0][0][lane_m], &b_tile[0][0][lane_n], af[0], bf[0]);
  }

  // One stage: BK outer products of this lane's fragments. One barrier per
  // stage. Fragments are read one kk ahead of the FFMAs that use them; at
  // the stage's last kk the next stage (loaded from global memory while this
  // one was multiplied) goes to the other buffer, whose last reader was
  // before the previous barrier, then the barrier, then the next stage's
  // first fragments, whose latency hides behind the last kk's FFMAs. The
  // last stage (kMore false) loads and stores nothing.
  auto multiply_stage = [&](int s, auto more) {
    constexpr bool kMore = decltype(more)::value;
    const int buf = s & 1;
    if constexpr (kMore) {
      loader.Advance();
      loader.Load(k - (s + 1) * G::kBK, a_next, b_next);
    }
#pragma unroll
    for (int kk = 0; kk < G::kBK; ++kk) {
      if (kk + 1 < G::kBK) {
        ReadFragments<G>(&a_tile[buf][kk + 1][lane_m], &b_tile[buf][kk + 1][lane_n],
                      af[(kk + 1) % 2], bf[(kk + 1) % 2]);
      } else if constexpr (kMore) {
        StoreATile<G>(a_tile[buf ^ 1], a_next);
        StoreBTile<G>(b_tile[buf ^ 1], b_next);
        __syncthreads();
        ReadFragments<G>(&a_tile[buf ^ 1][0][lane_m], &b_tile[buf ^ 1][0][lane_n], af[0], bf[0]);
      }
#pragma unroll
      for (int i = 0; i < G::kTM; ++i) {
#pragma unroll
        for (int j = 0; j < G::kTN; ++j) {
          float& sum = G::kKChunk > 0 ? partial[i][j] : total[i][j];
          sum = fmaf(af[kk % 2][i], bf[kk % 2][j], sum);
        }
      }
    }
    if constexpr (G::kKChunk > 0) {
      if ((s + 1) % (G::kKChunk > 0 ? G::kKChunk : 1) == 0 || !kMore) {
#pragma unroll
        for (int i = 0; i < G::kTM; ++i) {
#pragma unroll
          for (int j = 0; j < G::kTN; ++j) {
            total[i][j] += partial[i][j];
            partial[i][j] = 0.f;
          }
        }
      }
    }
  };
  for (int s = 0; s + 1 < stages; ++s) multiply_stage(s, std::true_type{});
  if (stages > 0) multiply_stage(stages - 1, std::false_type{});

  // Column j of this lane: group j / 4 of its 4-column groups.
  constexpr int kGroupStrideM = 4 * G::kLanesM;
  constexpr int kGroupStrideN = 4 * G::kLanesN;
  float bias_at[G::kTN];
#pragma unroll
  for (int j = 0; j < G::kTN; ++j) {
    const int64_t col = col0 + lane_n + j / 4 * kGroupStrideN + j % 4;
    bias_at[j] = bias != nullptr && col < n ? bias[col] : 0.f;
  }
#pragma unroll
  for (int i = 0; i < G::kTM; ++i) {
    const int64_t row = row0 + lane_m + i / 4 * kGroupStrideM + i % 4;
    if (row >= m) continue;
    float* c_row = c + row * n;
#pragma unroll
    for (int g = 0; g < G::kTN / 4; ++g) {
      const int64_t col = col0 + lane_n + g * kGroupStrideN;
      float out[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) out[j] = GeluTanh(total[i][g * 4 + j] + bias_at[g * 4 + j]);
      if constexpr (kVector) {
        if (col < n) {  // n % 4 == 0: the vector is wholly inside
          F4 v;
#pragma unroll
          for (int j = 0; j < 4; ++j) v.v[j] = out[j];
          *reinterpret_cast<F4*>(c_row + col) = v;
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < n) c_row[col + j] = out[j];
        }
      }
    }
  }
}

}  // namespace tiled
}  // namespace linear_gelu_cuda
