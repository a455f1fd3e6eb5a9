// The fp32 GEMM's tile shapes and launch plan, in plain C++ so the binding
// and the host tests (tests/gemm_plan_test.cpp) read the same numbers the
// kernels compile with.
//
// A tile shape is GemmTileOf<BM, BN, BK, TM, TN, KCHUNK, GROUP_M>: a block
// computes a BM x BN tile of C, walking K in steps of BK; its warps each own
// a WM x WN part of the tile, and each lane a TM x TN piece of that in
// registers, as TM / 4 x TN / 4 groups of 4 x 4 spread over the warp tile
// (the group of lane l starts at l's index times 4 along each side, the next
// group WM / (TM / 4) rows or WN / (TN / 4) columns further), so a warp's
// fragment reads are runs of adjacent 16-byte vectors, one shared-memory
// wavefront each, and its stores of C whole 128-byte rows. WM and WN are
// 4 TM and 8 TN, a warp of 4 x 8 lanes, unless the default tile's GEMM_WM,
// GEMM_WN say otherwise. Each instantiation checks its own constraints (the
// static_asserts, README.md "Tuning").
//
// GemmTile, the default tile, comes from compile-time macros (GEMM_BM ...),
// so `kbuild tune` can build one variant per point (-DGEMM_BM=64 ...);
// GemmSmallTile is the built-in tile for problems too small to fill the GPU
// with default tiles (ChooseBuiltinTile); a tune run's tuned_config.h names
// a tile per problem size (gemm.cu).
//
// Accumulation: with KCHUNK = 0 (the default) each output is one FMA chain
// over K; its rounding error grows as K (tests/gemm_cases.h: the tests'
// tolerance is built for one chain). KCHUNK > 0 sums the products of that
// many K-tiles (L = KCHUNK * BK terms) in a fresh register, then adds it to
// the total: error (L + K / L) instead of K in the worst case, at TM x TN
// more registers (about 200 instead of 128 at 8 x 8: one block per SM
// instead of two, and about half the speed).
#pragma once

#include <cstdint>

// Whether any tile macro came from outside (the command line: a `kbuild
// tune` variant, or -DGEMM_KCHUNK=8 for accuracy). Then GemmTile is the only
// tile the launcher runs, so a variant is measured as itself.
#if defined(GEMM_BM) || defined(GEMM_BN) || defined(GEMM_BK) || defined(GEMM_TM) || \
    defined(GEMM_TN) || defined(GEMM_WM) || defined(GEMM_WN) || defined(GEMM_KCHUNK) || \
    defined(GEMM_GROUP_M)
#define GEMM_TILE_FROM_DEFINES 1
#else
#define GEMM_TILE_FROM_DEFINES 0
#endif

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
#ifndef GEMM_WM
#define GEMM_WM (4 * GEMM_TM)  // rows of C per warp (4 lanes along M)
#endif
#ifndef GEMM_WN
#define GEMM_WN (8 * GEMM_TN)  // columns of C per warp (8 lanes along N)
#endif
#ifndef GEMM_KCHUNK
#define GEMM_KCHUNK 0  // K-tiles summed in a partial before it joins the total; 0: one chain
#endif
#ifndef GEMM_GROUP_M
#define GEMM_GROUP_M 8  // tile rows per raster group (L2 reuse of B)
#endif

#if defined(__CUDACC__)
#define GEMM_HOST_DEVICE __host__ __device__
#else
#define GEMM_HOST_DEVICE
#endif

namespace linear_gelu_cuda {

template <int BM, int BN, int BK, int TM, int TN, int KCHUNK, int GROUP_M, int WM = 4 * TM,
          int WN = 8 * TN>
struct GemmTileOf {
  static constexpr int kBM = BM;
  static constexpr int kBN = BN;
  static constexpr int kBK = BK;
  static constexpr int kTM = TM;
  static constexpr int kTN = TN;
  static constexpr int kWM = WM;
  static constexpr int kWN = WN;
  static constexpr int kKChunk = KCHUNK;
  static constexpr int kGroupM = GROUP_M;
  static constexpr int kLanesM = kWM / kTM;  // lanes of a warp along a column of C
  static constexpr int kLanesN = kWN / kTN;  // lanes of a warp along a row of C
  static constexpr int kWarpsM = kBM / kWM;
  static constexpr int kWarpsN = kBN / kWN;
  static constexpr int kThreads = kWarpsM * kWarpsN * 32;  // = BM * BN / (TM * TN)
  // 4-element vectors of the A tile (BM x BK) and the B tile (BK x BN) each
  // thread loads per stage.
  static constexpr int kALoads = kBM * kBK / (4 * kThreads);
  static constexpr int kBLoads = kBK * kBN / (4 * kThreads);
  // A is stored transposed, [BK][BM + 4]: the 4 floats of padding put the
  // transposing stores of a warp on distinct banks (BK = 8; two ways at
  // BK = 16) and keep each row 16-byte aligned for the vector reads.
  static constexpr int kAStride = kBM + 4;
  // Registers a thread needs, roughly: the accumulators (twice with a
  // partial), two sets of fragments, the next stage's loads, ~16 for
  // addresses and indices. When that is at most 128, __launch_bounds__ asks
  // for as many blocks per SM as 64 K registers hold at 128 per thread (two
  // at 256 threads: the defaults need 64 + 32 + 8 + 16 = 120), and ptxas
  // holds to 128; otherwise one block and up to 255.
  static constexpr int kRegisters =
      kTM * kTN * (kKChunk > 0 ? 2 : 1) + 2 * (kTM + kTN) + 4 * (kALoads + kBLoads) + 16;
  static constexpr int kMinBlocksPerSm =
      kRegisters <= 128 && kThreads * 128 <= 32768 ? 65536 / (kThreads * 128) : 1;

  static_assert(kTM % 4 == 0 && kTN % 4 == 0,
                "GEMM_TM and GEMM_TN must be multiples of 4 (16-byte fragments)");
  static_assert(kWM % kTM == 0 && kWN % kTN == 0,
                "GEMM_WM must be a multiple of GEMM_TM, GEMM_WN of GEMM_TN");
  static_assert(kLanesM * kLanesN == 32,
                "(GEMM_WM / GEMM_TM) * (GEMM_WN / GEMM_TN) must be 32: one warp per warp tile");
  static_assert(kBM % kWM == 0 && kBN % kWN == 0,
                "GEMM_BM must be a multiple of GEMM_WM, GEMM_BN of GEMM_WN");
  static_assert(kBK % 4 == 0, "GEMM_BK must be a multiple of 4 (16-byte loads of A)");
  static_assert(kThreads <= 1024,
                "GEMM_BM * GEMM_BN / (GEMM_TM * GEMM_TN) must be at most 1024 threads");
  static_assert(kBM * kBK % (4 * kThreads) == 0 && kALoads >= 1,
                "GEMM_BM * GEMM_BK must be a positive multiple of 4 x threads (whole vectors of "
                "A per thread)");
  static_assert(kBK * kBN % (4 * kThreads) == 0 && kBLoads >= 1,
                "GEMM_BK * GEMM_BN must be a positive multiple of 4 x threads (whole vectors of "
                "B per thread)");
  static_assert(kKChunk >= 0, "GEMM_KCHUNK must be 0 (one FMA chain) or more");
  static_assert(kGroupM >= 1, "GEMM_GROUP_M must be at least 1");
  static_assert(2 * kBK * (kAStride + kBN) * 4 <= 48 * 1024,
                "two stages of A and B must fit 48 KB of static shared memory");
};

// The default tile: the macros above.
using GemmTile = GemmTileOf<GEMM_BM, GEMM_BN, GEMM_BK, GEMM_TM, GEMM_TN, GEMM_KCHUNK,
                            GEMM_GROUP_M, GEMM_WM, GEMM_WN>;
// The tile for problems whose default tiles are fewer than the SMs (H200,
// 2026-12-01: 1000x1000x1000 has 64 tiles of 128 x 128 for 132 SMs and ran
// in 127 us, 0.50x cuBLAS; this tile makes 128 and ran in 72.8 us, 0.87x).
using GemmSmallTile = GemmTileOf<64, 128, 16, 4, 8, 4, 16>;
// GemmSmallTile is used only when the tile macros are the header's own.
inline constexpr bool kGemmSmallTileBuiltIn = GEMM_TILE_FROM_DEFINES == 0;

// The few-rows path (M <= kMaxRows, decode-like): a GEMV over N. A block
// owns kCols columns of C, each lane 4 adjacent ones (a 16-byte vector of
// every B row it reads), 8 lanes side by side, so a warp reads 4 B rows as
// four 128-byte runs; the block's kKGroups groups of lanes split K, each
// walking 4 consecutive rows at a time, kKStep rows apart, and the block
// sums the groups in shared memory. B is read once from DRAM, A (M x K) once
// per block through L1 / L2.
struct FewRows {
  static constexpr int kMaxRows = 16;
  static constexpr int kThreads = 512;
  static constexpr int kLanesN = 8;              // lanes along a row of C
  static constexpr int kCols = 4 * kLanesN;      // 32 columns of C per block
  static constexpr int kKGroups = kThreads / kLanesN;  // 64
  static constexpr int kKStep = 4 * kKGroups;    // 256 rows of B per step of a block
  static constexpr int kWarps = kThreads / 32;
};
static_assert(FewRows::kThreads >= FewRows::kMaxRows * FewRows::kCols,
              "the few-rows block sums its outputs one per thread");

// The row count the few-rows kernel is compiled for: the smallest power of
// two at least m (1, 2, 4, 8, 16), so a thread holds 4 x that many sums.
inline int FewRowsClass(int64_t m) {
  int rows = 1;
  while (rows < m) rows *= 2;
  return rows;
}

// C = A[M, K] @ B[K, N]: sizes, leading dimensions (elements between rows)
// and the addresses that decide the vector path.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0;
  std::uintptr_t a = 0, b = 0;
};

enum class GemmPath {
  kTiles,    // BM x BN tiles of C, one block each
  kFewRows,  // M <= FewRows::kMaxRows: a GEMV over N, kCols columns per block
};

struct GemmPlan {
  GemmPath path = GemmPath::kTiles;
  // 16-byte loads of A and B and stores of C: A and B 16-byte aligned, K, N,
  // lda and ldb multiples of 4. Then every 4-element vector of a tile is
  // wholly inside the matrix or wholly outside, and an edge tile reads
  // whole vectors or zeros. Otherwise every access is a checked scalar one.
  bool vector_access = false;
  int64_t tiles_m = 0, tiles_n = 0;  // kTiles: tiles of C; kFewRows: 1 and column blocks
  int64_t blocks = 0;                 // tiles_m * tiles_n, one-dimensional grid
};

// The largest one-dimensional grid (gridDim.x).
inline constexpr int64_t kMaxGridBlocks = (int64_t{1} << 31) - 1;
// M, N, K and the leading dimensions travel as int / int64: sizes past int
// are refused.
inline constexpr int64_t kMaxDim = (int64_t{1} << 31) - 1;

// Tiles of C under `Tile` (m, n past 16 rows: the tiled path).
template <typename Tile>
inline int64_t TileCount(int64_t m, int64_t n) {
  return ((m + Tile::kBM - 1) / Tile::kBM) * ((n + Tile::kBN - 1) / Tile::kBN);
}

// False when the shape cannot be launched (a size past kMaxDim, or more
// tiles of `Tile` than one grid holds).
template <typename Tile = GemmTile>
inline bool PlanGemm(const GemmShape& s, GemmPlan* plan) {
  if (s.m < 1 || s.n < 1 || s.k < 0 || s.m > kMaxDim || s.n > kMaxDim || s.k > kMaxDim) {
    return false;
  }
  GemmPlan p;
  if (s.m <= FewRows::kMaxRows) {
    p.path = GemmPath::kFewRows;
    p.tiles_m = 1;
    p.tiles_n = (s.n + FewRows::kCols - 1) / FewRows::kCols;
  } else {
    p.tiles_m = (s.m + Tile::kBM - 1) / Tile::kBM;
    p.tiles_n = (s.n + Tile::kBN - 1) / Tile::kBN;
  }
  if (p.tiles_m > kMaxGridBlocks / p.tiles_n) return false;
  p.blocks = p.tiles_m * p.tiles_n;
  p.vector_access = s.a % 16 == 0 && s.b % 16 == 0 && s.k % 4 == 0 && s.n % 4 == 0 &&
                    s.lda % 4 == 0 && s.ldb % 4 == 0;
  *plan = p;
  return true;
}

// The bytes a problem moves, A, B and C once (+ the bias): what
// benchmarks/gemm_bench.cpp counts for a case, hence what `kbuild tune`
// buckets the cases by in tuned_config.h, and what the launcher looks up there.
inline double GemmBytes(int64_t m, int64_t n, int64_t k, bool bias) {
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  return 4.0 * (md * kd + kd * nd + md * nd + (bias ? nd : 0.0));
}

enum class BuiltinTile { kDefault, kSmall };

// The tiled path's tile without tuned_config.h: GemmTile, unless its grid
// has fewer tiles than the device has SMs (fewer than half of the block
// slots busy, two per SM at the defaults) and GemmSmallTile is built in.
inline BuiltinTile ChooseBuiltinTile(int64_t m, int64_t n, int sm_count) {
  if (!kGemmSmallTileBuiltIn) return BuiltinTile::kDefault;
  return TileCount<GemmTile>(m, n) < sm_count ? BuiltinTile::kSmall : BuiltinTile::kDefault;
}

struct TileIndex {
  int64_t m, n;  // tile row and column
};

// Which tile block `block` computes: groups of Tile::kGroupM tile rows, each
// group walked column by column, so the blocks running at once share a few
// column panels of B and row panels of A in L2. A bijection of
// [0, tiles_m * tiles_n) onto the tiles (tests/gemm_plan_test.cpp).
template <typename Tile>
GEMM_HOST_DEVICE inline TileIndex TileOfBlock(int64_t block, int64_t tiles_m, int64_t tiles_n) {
  constexpr int64_t kGroup = Tile::kGroupM;
  const int64_t per_group = kGroup * tiles_n;
  const int64_t first_m = block / per_group * kGroup;
  const int64_t group_rows = tiles_m - first_m < kGroup ? tiles_m - first_m : kGroup;
  const int64_t in_group = block % per_group;
  return {first_m + in_group % group_rows, in_group / group_rows};
}

}  // namespace linear_gelu_cuda
