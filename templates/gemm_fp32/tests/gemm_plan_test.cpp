// The GEMM's launch plan (gemm_plan.h) on the host: every tile of C gets
// exactly one block under the grouped raster order, up to 16 rows take the
// few-rows path with one block per 32 columns, the 16-byte path is taken
// only when every vector of every tile is aligned and wholly inside or
// outside the matrix, and shapes past the grid are refused. A tile with no
// block leaves output unwritten on the GPU; two blocks on one tile race.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../{{python_name}}_cuda/gemm_plan.h"

namespace {

using {{python_name}}_cuda::FewRows;
using {{python_name}}_cuda::FewRowsClass;
using {{python_name}}_cuda::GemmPath;
using {{python_name}}_cuda::GemmPlan;
using {{python_name}}_cuda::GemmShape;
using {{python_name}}_cuda::GemmTile;
using {{python_name}}_cuda::PlanGemm;
using {{python_name}}_cuda::TileIndex;
using {{python_name}}_cuda::TileOfBlock;

// Contiguous A and B at 16-byte aligned addresses.
GemmShape Shape(int64_t m, int64_t n, int64_t k) { return {m, n, k, k, n, 0x1000, 0x2000}; }

TEST(GemmPlan, EveryTileGetsExactlyOneBlock) {
  const int64_t g = GemmTile::kGroupM;
  for (int64_t tiles_m : {int64_t{1}, int64_t{2}, g - 1, g, g + 1, 3 * g + 5, int64_t{547}}) {
    for (int64_t tiles_n : {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{64}, int64_t{547}}) {
      std::vector<int> seen(tiles_m * tiles_n, 0);
      for (int64_t block = 0; block < tiles_m * tiles_n; ++block) {
        const TileIndex t = TileOfBlock(block, tiles_m, tiles_n);
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

TEST(GemmPlan, BlocksInFlightShareARasterGroup) {
  // 16 x 16 tiles: the first GEMM_GROUP_M * 2 blocks cover two tile columns
  // of one group of tile rows, not two whole tile rows.
  const int64_t g = GemmTile::kGroupM;
  for (int64_t block = 0; block < 2 * g; ++block) {
    const TileIndex t = TileOfBlock(block, 16, 16);
    EXPECT_EQ(t.m, block % g);
    EXPECT_EQ(t.n, block / g);
  }
}

TEST(GemmPlan, TilesCoverTheMatrix) {
  GemmPlan p;
  ASSERT_TRUE(PlanGemm(Shape(GemmTile::kBM + 1, 2 * GemmTile::kBN, 0), &p));
  EXPECT_EQ(p.path, GemmPath::kTiles);
  EXPECT_EQ(p.tiles_m, 2);
  EXPECT_EQ(p.tiles_n, 2);
  EXPECT_EQ(p.blocks, 4);
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
