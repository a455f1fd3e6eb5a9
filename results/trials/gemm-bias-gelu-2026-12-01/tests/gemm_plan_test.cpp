// The GEMM's launch plan (gemm_plan.h) on the host: under each built-in
// tile (the default and the small-problem one) every tile of C gets exactly
// one block under the grouped raster order; the small-problem tile is chosen
// exactly when the default tiles are fewer than the SMs; up to 16 rows take
// the few-rows path with one block per 32 columns, the 16-byte path is taken
// only when every vector of every tile is aligned and wholly inside or
// outside the matrix, and shapes past the grid are refused. A tile with no
// block leaves output unwritten on the GPU; two blocks on one tile race.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../linear_gelu_cuda/gemm_plan.h"

namespace {

using linear_gelu_cuda::BuiltinTile;
using linear_gelu_cuda::ChooseBuiltinTile;
using linear_gelu_cuda::FewRows;
using linear_gelu_cuda::FewRowsClass;
using linear_gelu_cuda::GemmPath;
using linear_gelu_cuda::GemmPlan;
using linear_gelu_cuda::GemmBytes;
using linear_gelu_cuda::GemmShape;
using linear_gelu_cuda::GemmSmallTile;
using linear_gelu_cuda::GemmTile;
using linear_gelu_cuda::kGemmSmallTileBuiltIn;
using linear_gelu_cuda::PlanGemm;
using linear_gelu_cuda::TileCount;
using linear_gelu_cuda::TileIndex;
using linear_gelu_cuda::TileOfBlock;

// Contiguous A and B at 16-byte aligned addresses.
GemmShape Shape(int64_t m, int64_t n, int64_t k) { return {m, n, k, k, n, 0x1000, 0x2000}; }

// The tiles the launcher may run without tuned_config.h.
template <typename Tile>
class GemmTilePlan : public ::testing::Test {};
using BuiltinTiles = ::testing::Types<GemmTile, GemmSmallTile>;
TYPED_TEST_SUITE(GemmTilePlan, BuiltinTiles);

TYPED_TEST(GemmTilePlan, EveryTileGetsExactlyOneBlock) {
  const int64_t g = TypeParam::kGroupM;
  for (int64_t tiles_m : {int64_t{1}, int64_t{2}, g - 1, g, g + 1, 3 * g + 5, int64_t{547}}) {
    for (int64_t tiles_n : {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{64}, int64_t{547}}) {
      std::vector<int> seen(tiles_m * tiles_n, 0);
      for (int64_t block = 0; block < tiles_m * tiles_n; ++block) {
        const TileIndex t = TileOfBlock<TypeParam>(block, tiles_m, tiles_n);
        ASSERT_TRUE(t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n)
            << tiles_m << "x" << tiles_n << " tiles: block " << block << " -> (" << t.m << ", "
            << t.n << ")";
        ++seen[t.m * tiles_n + t.n];
      }
      for (int64_t i = 0; i < tiles_m * tiles_n; ++i) {
        ASSERT_EQ(seen[i], 1) << tiles_m << "x" << tiles_n << " tiles: tile (" << i / tiles_n
                              << ", " << i % tiles_n << ")";
      }
    }
  }
}

TYPED_TEST(GemmTilePlan, BlocksInFlightShareARasterGroup) {
  // 16 x 16 tiles: the first kGroupM * 2 blocks cover two tile columns of
  // one group of tile rows, not two whole tile rows.
  const int64_t g = TypeParam::kGroupM;
  for (int64_t block = 0; block < 2 * g; ++block) {
    const TileIndex t = TileOfBlock<TypeParam>(block, 16, 16);
    EXPECT_EQ(t.m, block % g);
    EXPECT_EQ(t.n, block / g);
  }
}

TYPED_TEST(GemmTilePlan, TilesCoverTheMatrix) {
  GemmPlan p;
  ASSERT_TRUE(PlanGemm<TypeParam>(Shape(TypeParam::kBM + 1, 2 * TypeParam::kBN, 0), &p));
  EXPECT_EQ(p.path, GemmPath::kTiles);
  EXPECT_EQ(p.tiles_m, 2);
  EXPECT_EQ(p.tiles_n, 2);
  EXPECT_EQ(p.blocks, 4);
  EXPECT_EQ(TileCount<TypeParam>(TypeParam::kBM + 1, 2 * TypeParam::kBN), 4);
}

TEST(GemmPlan, SmallTileOnlyWhenDefaultTilesAreFewerThanSms) {
  constexpr int kSms = 132;  // H200
  if (!kGemmSmallTileBuiltIn) {
    // Tile macros from the command line: that tile alone.
    EXPECT_EQ(ChooseBuiltinTile(1000, 1000, kSms), BuiltinTile::kDefault);
    EXPECT_EQ(ChooseBuiltinTile(17, 64, kSms), BuiltinTile::kDefault);
    return;
  }
  // The defaults: 128 x 128 tiles. 1000^3: 64 tiles, measured 0.50x cuBLAS
  // with them and 0.87x with the small tile (gemm_plan.h).
  EXPECT_EQ(ChooseBuiltinTile(1000, 1000, kSms), BuiltinTile::kSmall);
  EXPECT_EQ(ChooseBuiltinTile(17, 64, kSms), BuiltinTile::kSmall);
  EXPECT_EQ(ChooseBuiltinTile(4096, 1024, kSms), BuiltinTile::kDefault);  // 256 tiles
  EXPECT_EQ(ChooseBuiltinTile(8192, 8192, kSms), BuiltinTile::kDefault);
  // The boundary: kSms - 1 tiles take the small tile, kSms tiles do not.
  EXPECT_EQ(ChooseBuiltinTile((kSms - 1) * GemmTile::kBM, GemmTile::kBN, kSms),
            BuiltinTile::kSmall);
  EXPECT_EQ(ChooseBuiltinTile(kSms * GemmTile::kBM, 1, kSms), BuiltinTile::kDefault);
  EXPECT_EQ(ChooseBuiltinTile(12 * GemmTile::kBM - 5, 11 * GemmTile::kBN, kSms),
            BuiltinTile::kDefault);  // 12 x 11 = 132 tiles
  // A failed SM-count query reads as 1 SM: the default tile.
  EXPECT_EQ(ChooseBuiltinTile(17, 64, 1), BuiltinTile::kDefault);
}

TEST(GemmPlan, SmallTileRunsTwoBlocksPerSm) {
  // 256 threads at 128 registers at most (ptxas: 127, no spills).
  EXPECT_EQ(GemmSmallTile::kThreads, 256);
  EXPECT_EQ(GemmSmallTile::kMinBlocksPerSm, 2);
}

TEST(GemmPlan, BytesAreWhatTheBenchmarkCounts) {
  // A, B and C once, + the bias: tuned_config.h's buckets are in these bytes.
  EXPECT_EQ(GemmBytes(1000, 1000, 1000, false), 12e6);
  EXPECT_EQ(GemmBytes(1000, 1000, 1000, true), 12e6 + 4000);
  EXPECT_EQ(GemmBytes(4096, 1024, 8192, false),
            4.0 * (4096.0 * 8192 + 8192.0 * 1024 + 4096.0 * 1024));
  EXPECT_EQ(GemmBytes(17, 5, 0, true), 4.0 * (17 * 5 + 5));
}

TEST(GemmPlan, FewRowsTakeOneBlockPerColumnSlab) {
  GemmPlan p;
  for (int64_t m : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{FewRows::kMaxRows}}) {
    for (int64_t n : {int64_t{1}, int64_t{FewRows::kCols}, int64_t{FewRows::kCols + 1},
                      int64_t{4096}, (int64_t{1} << 31) - 1}) {
      ASSERT_TRUE(PlanGemm(Shape(m, n, 4096), &p));
      EXPECT_EQ(p.path, GemmPath::kFewRows) << m << "x" << n;
      EXPECT_EQ(p.blocks, (n + FewRows::kCols - 1) / FewRows::kCols) << m << "x" << n;
    }
  }
  ASSERT_TRUE(PlanGemm(Shape(FewRows::kMaxRows + 1, 4096, 4096), &p));
  EXPECT_EQ(p.path, GemmPath::kTiles);
}

TEST(GemmPlan, FewRowsKernelCoversM) {
  // The kernel for m rows holds FewRowsClass(m) >= m rows of sums, one of
  // the compiled powers of two.
  for (int64_t m = 1; m <= FewRows::kMaxRows; ++m) {
    const int rows = FewRowsClass(m);
    EXPECT_GE(rows, m);
    EXPECT_LT(rows, 2 * m);
    EXPECT_TRUE(rows == 1 || rows == 2 || rows == 4 || rows == 8 || rows == 16) << m;
  }
  // One thread per output sums the groups: a block has enough of them.
  EXPECT_GE(FewRows::kThreads, FewRows::kMaxRows * FewRows::kCols);
}

TEST(GemmPlan, VectorPathOnlyWhenEveryVectorIsAlignedAndWhole) {
  GemmPlan p;
  ASSERT_TRUE(PlanGemm(Shape(4096, 1024, 8192), &p));
  EXPECT_TRUE(p.vector_access);
  ASSERT_TRUE(PlanGemm(Shape(129, 132, 36), &p));
  EXPECT_TRUE(p.vector_access);  // edge tiles read whole vectors or zeros
  for (const GemmShape& s : {Shape(127, 129, 131), Shape(8, 130, 8), Shape(8, 8, 6)}) {
    ASSERT_TRUE(PlanGemm(s, &p));
    EXPECT_FALSE(p.vector_access) << s.m << "x" << s.n << "x" << s.k;
  }
  GemmShape s = Shape(64, 64, 64);
  s.a += 4;  // one float past a 16-byte boundary
  ASSERT_TRUE(PlanGemm(s, &p));
  EXPECT_FALSE(p.vector_access);
  s = Shape(64, 64, 64);
  s.ldb = 67;
  ASSERT_TRUE(PlanGemm(s, &p));
  EXPECT_FALSE(p.vector_access);
  s.ldb = 0;  // a broadcast row
  ASSERT_TRUE(PlanGemm(s, &p));
  EXPECT_TRUE(p.vector_access);
}

TEST(GemmPlan, RefusesSizesPastIntAndTheGrid) {
  GemmPlan p;
  EXPECT_FALSE(PlanGemm(Shape(0, 4, 4), &p));
  EXPECT_FALSE(PlanGemm(Shape(int64_t{1} << 31, 4, 4), &p));
  EXPECT_FALSE(PlanGemm(Shape(4, 4, int64_t{1} << 31), &p));
  // 2^31 - 1 rows and columns: more tiles than one grid holds.
  EXPECT_FALSE(PlanGemm(Shape((int64_t{1} << 31) - 1, (int64_t{1} << 31) - 1, 1), &p));
  EXPECT_TRUE(PlanGemm(Shape((int64_t{1} << 31) - 1, 1, 1), &p));
}

}  // namespace
