// fp32 GEMM on CUDA cores: C[M, N] = A[M, K] @ B[K, N] (+ bias[N] on every
// row), row-major, FFMA only (no TF32, no tensor cores): the arithmetic of
// cuBLAS's SGEMM with TF32 off.
//
// Work: 2 * M * N * K flops (+ M * N for the bias). Bytes moved (the floor):
// 4 * (M * K + K * N + M * N (+ N)), each matrix once; at the shapes of
// interest the op is compute-bound, and its target is the H200's fp32
// CUDA-core peak, 132 SMs x 128 lanes x 2 flops x 1.98 GHz = 66.9 TFLOP/s.
//
// Launch shape (gemm_plan.h; defaults): one block of 256 threads per
// 128 x 128 tile of C, a one-dimensional grid walked in groups of 8 tile rows
// (L2 reuse); K in stages of 8: the block stages an A tile (stored
// transposed, padded) and a B tile in shared memory, two buffers, the next
// stage's global loads held in registers while the current one is multiplied
// (one __syncthreads per stage); each thread multiplies 8 x 8 outputs in
// registers, summing 8 stages (64 terms) in a partial before adding it to the
// total. 16-byte loads and stores when A and B are 16-byte aligned and K, N,
// lda, ldb are multiples of 4 (edge tiles then read whole vectors or zeros);
// otherwise checked scalar loads and stores. Launched overlapped
// (common/overlap.cuh).
//
// Measured (H200): pending its first `kbuild bench` there.

#include "common/overlap.cuh"
#include "common/vec.cuh"
#include "gemm.h"
#include "gemm_plan.h"

namespace {

using kernels_common::AllowNextKernelLaunch;
using kernels_common::Vec;
using kernels_common::WaitForPreviousKernel;
using {{python_name}}_cuda::GemmTile;
using {{python_name}}_cuda::TileIndex;
using {{python_name}}_cuda::TileOfBlock;
using F4 = Vec<float, 4>;

// Columns [col, col + 4) of one row: one 16-byte load (kVector) or four
// checked scalar loads; zeros outside the matrix.
template <bool kVector>
__device__ __forceinline__ void LoadFour(const float* row, int64_t col, int64_t cols,
                                         bool row_inside, float (&out)[4]) {
  if constexpr (kVector) {
    // cols % 4 == 0: the vector is wholly inside or wholly outside.
    const F4 v = row_inside && col < cols ? *reinterpret_cast<const F4*>(row + col) : F4{};
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = v.v[i];
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = row_inside && col + i < cols ? row[col + i] : 0.f;
  }
}

// A tile of a row-major matrix `x` (rows `rows`, columns `cols`, rows `ld`
// apart): rows [row0, ...) x columns [col0, col0 + kCols), 4 columns per
// vector; vector l of this thread is v = threadIdx.x + l * threads, row
// v / (kCols / 4), columns (v % (kCols / 4)) * 4 + [0, 4). Outside the
// matrix: zeros. The A tile is BM x BK, the B tile BK x BN.
template <bool kVector, int kCols, int kLoads>
__device__ __forceinline__ void LoadTile(const float* x, int64_t row0, int64_t col0, int64_t rows,
                                         int64_t cols, int64_t ld, float (&regs)[kLoads][4]) {
  constexpr int kPerRow = kCols / 4;
#pragma unroll
  for (int l = 0; l < kLoads; ++l) {
    const int v = threadIdx.x + l * GemmTile::kThreads;
    const int64_t row = row0 + v / kPerRow;
    LoadFour<kVector>(x + row * ld, col0 + v % kPerRow * 4, cols, row < rows, regs[l]);
  }
}

// A transposed: a_tile[kk][row], so a thread's rows for one kk are adjacent.
__device__ __forceinline__ void StoreATile(float (*a_tile)[GemmTile::kAStride],
                                           const float (&regs)[GemmTile::kALoads][4]) {
  constexpr int kPerRow = GemmTile::kBK / 4;
#pragma unroll
  for (int l = 0; l < GemmTile::kALoads; ++l) {
    const int v = threadIdx.x + l * GemmTile::kThreads;
#pragma unroll
    for (int i = 0; i < 4; ++i) a_tile[v % kPerRow * 4 + i][v / kPerRow] = regs[l][i];
  }
}

__device__ __forceinline__ void StoreBTile(float (*b_tile)[GemmTile::kBN],
                                           const float (&regs)[GemmTile::kBLoads][4]) {
  constexpr int kPerRow = GemmTile::kBN / 4;
#pragma unroll
  for (int l = 0; l < GemmTile::kBLoads; ++l) {
    const int v = threadIdx.x + l * GemmTile::kThreads;
    F4 f;
#pragma unroll
    for (int i = 0; i < 4; ++i) f.v[i] = regs[l][i];
    *reinterpret_cast<F4*>(&b_tile[v / kPerRow][v % kPerRow * 4]) = f;
  }
}

// A thread's g-th group of 4 rows (columns) sits 4 * threads-along-that-side
// apart from the next, so a warp reads and writes runs of adjacent vectors.
template <int kCount, int kThreadsAlong>
__device__ __forceinline__ void ReadFragment(const float* smem_row, int lane_along,
                                             float (&frag)[kCount]) {
#pragma unroll
  for (int g = 0; g < kCount / 4; ++g) {
    const F4 v = *reinterpret_cast<const F4*>(smem_row + g * 4 * kThreadsAlong + lane_along * 4);
#pragma unroll
    for (int i = 0; i < 4; ++i) frag[g * 4 + i] = v.v[i];
  }
}

template <bool kVector>
__global__ void __launch_bounds__(GemmTile::kThreads)
    GemmKernel(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
               const float* __restrict__ bias, int m, int n, int k, int64_t lda, int64_t ldb,
               int64_t tiles_m, int64_t tiles_n) {
  using G = GemmTile;
  alignas(16) __shared__ float a_tile[2][G::kBK][G::kAStride];
  alignas(16) __shared__ float b_tile[2][G::kBK][G::kBN];
  const TileIndex tile = TileOfBlock(blockIdx.x, tiles_m, tiles_n);
  const int64_t row0 = tile.m * G::kBM;
  const int64_t col0 = tile.n * G::kBN;
  const int tr = threadIdx.x / G::kThreadsN;
  const int tc = threadIdx.x % G::kThreadsN;

  WaitForPreviousKernel();
  AllowNextKernelLaunch();

  float total[G::kTM][G::kTN] = {};
  float partial[G::kTM][G::kTN] = {};
  float a_next[G::kALoads][4];
  float b_next[G::kBLoads][4];
  const int stages = (k + G::kBK - 1) / G::kBK;
  if (stages > 0) {
    LoadTile<kVector, G::kBK>(a, row0, 0, m, k, lda, a_next);
    LoadTile<kVector, G::kBN>(b, 0, col0, k, n, ldb, b_next);
    StoreATile(a_tile[0], a_next);
    StoreBTile(b_tile[0], b_next);
  }
  __syncthreads();

  for (int s = 0; s < stages; ++s) {
    const int buf = s & 1;
    const bool more = s + 1 < stages;
    if (more) {  // in flight while this stage is multiplied
      const int64_t k0 = static_cast<int64_t>(s + 1) * G::kBK;
      LoadTile<kVector, G::kBK>(a, row0, k0, m, k, lda, a_next);
      LoadTile<kVector, G::kBN>(b, k0, col0, k, n, ldb, b_next);
    }
#pragma unroll
    for (int kk = 0; kk < G::kBK; ++kk) {
      float af[G::kTM];
      float bf[G::kTN];
      ReadFragment<G::kTM, G::kThreadsM>(a_tile[buf][kk], tr, af);
      ReadFragment<G::kTN, G::kThreadsN>(b_tile[buf][kk], tc, bf);
#pragma unroll
      for (int i = 0; i < G::kTM; ++i) {
#pragma unroll
        for (int j = 0; j < G::kTN; ++j) {
          if constexpr (G::kKChunk == 0) {
            total[i][j] = fmaf(af[i], bf[j], total[i][j]);
          } else {
            partial[i][j] = fmaf(af[i], bf[j], partial[i][j]);
          }
        }
      }
    }
    if constexpr (G::kKChunk > 0) {
      if ((s + 1) % G::kKChunk == 0) {
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
    if (more) {  // the other buffer was last read before the previous barrier
      StoreATile(a_tile[buf ^ 1], a_next);
      StoreBTile(b_tile[buf ^ 1], b_next);
    }
    __syncthreads();
  }

  float bias_at[G::kTN];
#pragma unroll
  for (int j = 0; j < G::kTN; ++j) {
    const int64_t col = col0 + j / 4 * 4 * G::kThreadsN + tc * 4 + j % 4;
    bias_at[j] = bias != nullptr && col < n ? bias[col] : 0.f;
  }
#pragma unroll
  for (int i = 0; i < G::kTM; ++i) {
    const int64_t row = row0 + i / 4 * 4 * G::kThreadsM + tr * 4 + i % 4;
    if (row >= m) continue;
    float* c_row = c + row * n;
#pragma unroll
    for (int g = 0; g < G::kTN / 4; ++g) {
      const int64_t col = col0 + g * 4 * G::kThreadsN + tc * 4;
      float out[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float sum =
            G::kKChunk == 0 ? total[i][g * 4 + j] : total[i][g * 4 + j] + partial[i][g * 4 + j];
        out[j] = sum + bias_at[g * 4 + j];
      }
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

}  // namespace

namespace {{python_name}}_cuda {

cudaError_t LaunchGemm(float* c, const float* a, const float* b, const float* bias, int64_t m,
                       int64_t n, int64_t k, int64_t lda, int64_t ldb, cudaStream_t stream) {
  if (m == 0 || n == 0) return cudaSuccess;
  const GemmShape shape{
      m, n, k, lda, ldb, reinterpret_cast<std::uintptr_t>(a), reinterpret_cast<std::uintptr_t>(b)};
  GemmPlan plan;
  if (!PlanGemm(shape, &plan)) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(plan.blocks));
  const dim3 block(GemmTile::kThreads);
  auto launch = [&](auto kernel) {
    return kernels_common::LaunchOverlapped(
        kernel, grid, block, stream, c, a, b, bias, static_cast<int>(m), static_cast<int>(n),
        static_cast<int>(k), lda, ldb, plan.tiles_m, plan.tiles_n);
  };
  return plan.vector_access ? launch(GemmKernel<true>) : launch(GemmKernel<false>);
}

}  // namespace {{python_name}}_cuda
