// Cross-entropy's launch plan (common/cross_entropy_plan.h) on the host:
// Qwen3's vocabulary rows take a 256-thread block each from 132 rows up and
// clusters of 2-8 blocks below; rows of <= 128 vectors take the library's
// group paths; every plan stays inside the kernels' launch bound.
#include "../fused_ce_cuda/common/cross_entropy_plan.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using kernels_common::CrossEntropyPlan;
using kernels_common::kCeBlockThreads;
using kernels_common::kWholeBlock;
using kernels_common::PlanCrossEntropy;
using kernels_common::RowPath;
using kernels_common::ShapeOf;

constexpr int kSms = 132;  // H200
constexpr int kThreadsPerSm = 2048;
constexpr int64_t kQwenBf16 = 151936 / 8;  // vectors per row
constexpr int64_t kQwenFp32 = 151936 / 4;

CrossEntropyPlan Plan(int64_t rows, int64_t nv, bool clusters = true) {
  return PlanCrossEntropy(rows, nv, kSms, kThreadsPerSm, clusters);
}

TEST(CrossEntropyPlan, QwenTokensTakeABlockPerRow) {
  for (int64_t rows : {132, 512, 2048, 8192}) {
    for (int64_t nv : {kQwenBf16, kQwenFp32}) {
      const CrossEntropyPlan p = Plan(rows, nv);
      EXPECT_EQ(p.cluster, 1) << rows;
      EXPECT_EQ(p.rows.path, RowPath::kBlockLoop);
      EXPECT_EQ(p.rows.threads, kCeBlockThreads);
      EXPECT_EQ(p.rows.blocks, rows);
    }
  }
}

TEST(CrossEntropyPlan, FewTokensTakeClusters) {
  EXPECT_EQ(Plan(1, kQwenBf16).cluster, 8);
  EXPECT_EQ(Plan(16, kQwenBf16).cluster, 8);   // 128 blocks
  EXPECT_EQ(Plan(17, kQwenBf16).cluster, 8);   // 136: the doubling that fills
  EXPECT_EQ(Plan(40, kQwenBf16).cluster, 4);   // 160 blocks
  EXPECT_EQ(Plan(100, kQwenBf16).cluster, 2);  // 200 blocks
  EXPECT_EQ(Plan(1, kQwenBf16, false).cluster, 1);
  // Each block of a cluster keeps at least 2 x kCeUnroll vectors a thread.
  EXPECT_EQ(Plan(1, 2048).cluster, 2);
  EXPECT_EQ(Plan(1, 4096).cluster, 4);
  EXPECT_EQ(Plan(1, 2047).cluster, 1);
  const CrossEntropyPlan p = Plan(3, kQwenBf16);
  EXPECT_EQ(p.rows.blocks, 3 * 8);
  EXPECT_EQ(p.rows.path, RowPath::kBlockLoop);
}

TEST(CrossEntropyPlan, ShortRowsTakeGroupsOfLanes) {
  EXPECT_EQ(ShapeOf(Plan(9001, 16).rows.path).group, 16);
  EXPECT_EQ(ShapeOf(Plan(70001, 33).rows.path).group, 32);
  EXPECT_EQ(ShapeOf(Plan(4099, 128).rows.path).group, 32);  // a warp, 4 each
  EXPECT_EQ(ShapeOf(Plan(4099, 129).rows.path).group, kWholeBlock);
  EXPECT_EQ(Plan(4099, 129).rows.threads, 160);
}

TEST(CrossEntropyPlan, EveryPlanFitsTheLaunchBound) {
  for (int64_t rows : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{131}, int64_t{132},
                       int64_t{4099}, int64_t{70001}, int64_t{1} << 31}) {
    for (int64_t nv = 1; nv <= 300000; nv = nv * 3 / 2 + 1) {
      const CrossEntropyPlan p = Plan(rows, nv);
      EXPECT_LE(p.rows.threads, kCeBlockThreads) << rows << " x " << nv;
      EXPECT_EQ(p.rows.threads % 32, 0);
      EXPECT_GE(p.rows.blocks * p.rows.threads, 1);
      if (p.cluster > 1) EXPECT_EQ(p.rows.blocks, rows * p.cluster);
    }
  }
}

}  // namespace
