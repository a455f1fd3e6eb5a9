// The fp32 GEMM's tile shape and launch plan, in plain C++ so the binding
// and the host tests (tests/gemm_plan_test.cpp) read the same numbers the
// kernel compiles with.
//
// Tile shape: compile-time macros, so `kbuild tune` can vary them
// (-DGEMM_BM=64 ...); the static_asserts below are the constraints of the
// space (README.md, "Tuning"). A block of (BM / TM) x (BN / TN) threads
// computes a BM x BN tile of C, walking K in steps of BK; each thread holds
// a TM x TN tile of C in registers, as TM / 4 x TN / 4 groups of 4 x 4
// spread over the block tile, so a warp's shared-memory reads and global
// stores are runs of contiguous 16-byte vectors.
//
// Accumulation: each thread sums the products of GEMM_KCHUNK K-tiles
// (GEMM_KCHUNK * BK terms) in a fresh register per output, then adds that
// partial sum to the output's running total. The rounding error of one
// output then grows as (L + K / L) * eps * sum|a||b| in the worst case,
// L = GEMM_KCHUNK * BK, instead of K * eps for one FMA chain over K
// (and as sqrt(L) + sqrt(K / L) instead of sqrt(K) on average). The partial
// costs TM x TN registers (201 instead of about 128 per thread at the
// defaults: one block per SM instead of two); GEMM_KCHUNK=0 drops it and
// accumulates one FMA chain per output over K.
#pragma once

#include <cstdint>

#ifndef GEMM_BM
#define GEMM_BM 128  // rows of C per block
#endif
#ifndef GEMM_BN
#define GEMM_BN 128  // columns of C per block
#endif
#ifndef GEMM_BK
#define GEMM_BK 8  // K per shared-memory stage
#endif
#ifndef GEMM_TM
#define GEMM_TM 8  // rows of C per thread
#endif
#ifndef GEMM_TN
#define GEMM_TN 8  // columns of C per thread
#endif
#ifndef GEMM_KCHUNK
#define GEMM_KCHUNK 8  // K-tiles summed in a partial before it joins the total; 0: one chain
#endif
#ifndef GEMM_GROUP_M
#define GEMM_GROUP_M 8  // tile rows per raster group (L2 reuse of B)
#endif

#if defined(__CUDACC__)
#define GEMM_HOST_DEVICE __host__ __device__
#else
#define GEMM_HOST_DEVICE
#endif

namespace {{python_name}}_cuda {

struct GemmTile {
  static constexpr int kBM = GEMM_BM;
  static constexpr int kBN = GEMM_BN;
  static constexpr int kBK = GEMM_BK;
  static constexpr int kTM = GEMM_TM;
  static constexpr int kTN = GEMM_TN;
  static constexpr int kKChunk = GEMM_KCHUNK;
  static constexpr int kGroupM = GEMM_GROUP_M;
  static constexpr int kThreadsM = kBM / kTM;  // threads along a column of C
  static constexpr int kThreadsN = kBN / kTN;  // threads along a row of C
  static constexpr int kThreads = kThreadsM * kThreadsN;
  // 4-element vectors of the A tile (BM x BK) and the B tile (BK x BN) each
  // thread loads per stage.
  static constexpr int kALoads = kBM * kBK / (4 * kThreads);
  static constexpr int kBLoads = kBK * kBN / (4 * kThreads);
  // A is stored transposed, [BK][BM + 4]: the 4 floats of padding put the
  // transposing stores of a warp on distinct banks and keep each row 16-byte
  // aligned for the vector reads.
  static constexpr int kAStride = kBM + 4;
};

static_assert(GemmTile::kTM % 4 == 0 && GemmTile::kTN % 4 == 0,
              "GEMM_TM and GEMM_TN must be multiples of 4 (16-byte fragments)");
static_assert(GemmTile::kBM % GemmTile::kTM == 0 && GemmTile::kBN % GemmTile::kTN == 0,
              "GEMM_BM must be a multiple of GEMM_TM, GEMM_BN of GEMM_TN");
static_assert(GemmTile::kBK % 4 == 0, "GEMM_BK must be a multiple of 4 (16-byte loads of A)");
static_assert(GemmTile::kThreads >= 32 && GemmTile::kThreads <= 1024 &&
                  GemmTile::kThreads % 32 == 0,
              "GEMM_BM * GEMM_BN / (GEMM_TM * GEMM_TN) must be a multiple of 32 in 32..1024");
static_assert(GemmTile::kBM * GemmTile::kBK % (4 * GemmTile::kThreads) == 0 &&
                  GemmTile::kALoads >= 1,
              "GEMM_BM * GEMM_BK must be a positive multiple of 4 x threads (whole vectors of A "
              "per thread)");
static_assert(GemmTile::kBK * GemmTile::kBN % (4 * GemmTile::kThreads) == 0 &&
                  GemmTile::kBLoads >= 1,
              "GEMM_BK * GEMM_BN must be a positive multiple of 4 x threads (whole vectors of B "
              "per thread)");
static_assert(GemmTile::kKChunk >= 0, "GEMM_KCHUNK must be 0 (one FMA chain) or more");
static_assert(GemmTile::kGroupM >= 1, "GEMM_GROUP_M must be at least 1");
static_assert(2 * GemmTile::kBK * (GemmTile::kAStride + GemmTile::kBN) * 4 <= 48 * 1024,
              "two stages of A and B must fit 48 KB of static shared memory");

// C = A[M, K] @ B[K, N]: sizes, leading dimensions (elements between rows)
// and the addresses that decide the vector path.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0;
  std::uintptr_t a = 0, b = 0;
};

struct GemmPlan {
  // 16-byte loads of A and B and stores of C: A and B 16-byte aligned, K, N,
  // lda and ldb multiples of 4. Then every 4-element vector of a tile is
  // wholly inside the matrix or wholly outside, and an edge tile reads
  // whole vectors or zeros. Otherwise every access is a checked scalar one.
  bool vector_access = false;
  int64_t tiles_m = 0, tiles_n = 0;
  int64_t blocks = 0;  // tiles_m * tiles_n, one-dimensional grid
};

// The largest one-dimensional grid (gridDim.x).
inline constexpr int64_t kMaxGridBlocks = (int64_t{1} << 31) - 1;
// M, N, K and the leading dimensions travel as int / int64: sizes past int
// are refused.
inline constexpr int64_t kMaxDim = (int64_t{1} << 31) - 1;

// False when the shape cannot be launched (a size past kMaxDim, or more
// tiles than one grid holds).
inline bool PlanGemm(const GemmShape& s, GemmPlan* plan) {
  if (s.m < 1 || s.n < 1 || s.k < 0 || s.m > kMaxDim || s.n > kMaxDim || s.k > kMaxDim) {
    return false;
  }
  GemmPlan p;
  p.tiles_m = (s.m + GemmTile::kBM - 1) / GemmTile::kBM;
  p.tiles_n = (s.n + GemmTile::kBN - 1) / GemmTile::kBN;
  if (p.tiles_m > kMaxGridBlocks / p.tiles_n) return false;
  p.blocks = p.tiles_m * p.tiles_n;
  p.vector_access = s.a % 16 == 0 && s.b % 16 == 0 && s.k % 4 == 0 && s.n % 4 == 0 &&
                    s.lda % 4 == 0 && s.ldb % 4 == 0;
  *plan = p;
  return true;
}

struct TileIndex {
  int64_t m, n;  // tile row and column
};

// Which tile block `block` computes: groups of GEMM_GROUP_M tile rows, each
// group walked column by column, so the blocks running at once share a few
// column panels of B and row panels of A in L2. A bijection of
// [0, tiles_m * tiles_n) onto the tiles (tests/gemm_plan_test.cpp).
GEMM_HOST_DEVICE inline TileIndex TileOfBlock(int64_t block, int64_t tiles_m, int64_t tiles_n) {
  const int64_t per_group = int64_t{GemmTile::kGroupM} * tiles_n;
  const int64_t first_m = block / per_group * GemmTile::kGroupM;
  const int64_t group_rows =
      tiles_m - first_m < GemmTile::kGroupM ? tiles_m - first_m : GemmTile::kGroupM;
  const int64_t in_group = block % per_group;
  return {first_m + in_group % group_rows, in_group / group_rows};
}

}  // namespace {{python_name}}_cuda
