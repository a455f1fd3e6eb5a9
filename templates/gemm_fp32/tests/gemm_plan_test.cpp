// The GEMM's launch plan (gemm_plan.h) on the host: every tile of C gets
// exactly one block under the grouped raster order, the 16-byte path is
// taken only when every vector of every tile is aligned and wholly inside
// or outside the matrix, and shapes past the grid are refused. A tile with
// no block leaves output unwritten on the GPU; two blocks on one tile race.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../{{python_name}}_cuda/gemm_plan.h"

namespace {

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
  ASSERT_TRUE(PlanGemm(Shape(1, 1, 1), &p));
  EXPECT_EQ(p.blocks, 1);
  ASSERT_TRUE(PlanGemm(Shape(GemmTile::kBM + 1, 2 * GemmTile::kBN, 0), &p));
  EXPECT_EQ(p.tiles_m, 2);
  EXPECT_EQ(p.tiles_n, 2);
  EXPECT_EQ(p.blocks, 4);
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
