// Softmax's launch plan (common/softmax_plan.h) on the host: rows longer
// than a block's registers split over the smallest cluster of 2-8 blocks
// that holds them (larger while SMs would idle) where that launch runs in
// one wave or x outgrows L2; other few long rows spread over clusters of
// 2-8 looping blocks until the GPU has a block per SM, each block keeping
// at least a vector per thread; everything else is the library's row plan
// with a budget of 8 vectors per thread.
#include "../{{python_name}}_cuda/common/softmax_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace {

using kernels_common::kLoopBlockThreads;
using kernels_common::kMaxRegisterRowVecs;
using kernels_common::kSoftmaxVecs;
using kernels_common::PlanRows;
using kernels_common::PlanRowsOrClusters;
using kernels_common::PlanSoftmax;
using kernels_common::RowPath;
using kernels_common::SoftmaxPlan;

constexpr int kSms = 132;  // H200
constexpr int kThreadsPerSm = 2048;
constexpr int64_t kL2Bytes = int64_t{60} << 20;  // H200 (H100: 50 MiB)

// The plan softmax launches for rows of nv 16-byte vectors.
SoftmaxPlan Plan(int64_t rows, int64_t nv, bool clusters = true) {
  return PlanSoftmax(rows, nv, kSms, kThreadsPerSm, clusters, rows * nv * 16, kL2Bytes);
}

// Each rule on its own: held clusters for rows past a block's registers,
// or looped clusters only.
SoftmaxPlan HeldPlan(int64_t rows, int64_t nv) {
  return PlanRowsOrClusters(rows, nv, kSms, kThreadsPerSm, kSoftmaxVecs, true, true);
}
SoftmaxPlan LoopedPlan(int64_t rows, int64_t nv) {
  return PlanRowsOrClusters(rows, nv, kSms, kThreadsPerSm, kSoftmaxVecs, true, false);
}

bool SamePlan(const SoftmaxPlan& a, const SoftmaxPlan& b) {
  return a.cluster == b.cluster && a.rows.path == b.rows.path &&
         a.rows.threads == b.rows.threads && a.rows.blocks == b.rows.blocks;
}

TEST(SoftmaxPlan, ClustersHoldInOneWaveOrPastL2) {
  // 256 blocks: one wave (2 an SM); 32 x 151936 bf16, 18.3 -> 14.4 us.
  EXPECT_TRUE(SamePlan(Plan(32, 18992), HeldPlan(32, 18992)));
  EXPECT_TRUE(SamePlan(Plan(33, 18992), HeldPlan(33, 18992)));  // 264 blocks
  // 268 MB of x: a loop would read it twice from DRAM; fp32 2048 x 32768,
  // 191.7 -> 145.5 us.
  EXPECT_TRUE(SamePlan(Plan(2048, 8192), HeldPlan(2048, 8192)));
  // 1024 held blocks, 39 MB of x: the loop re-reads it from L2 (128 x 151936
  // bf16: 31.1 us looped, 33.5 held).
  EXPECT_TRUE(SamePlan(Plan(128, 18992), LoopedPlan(128, 18992)));
  EXPECT_TRUE(SamePlan(Plan(34, 18992), LoopedPlan(34, 18992)));  // 272 blocks
  const int64_t past_l2 = kL2Bytes / (16 * 18992) + 1;            // rows
  EXPECT_TRUE(SamePlan(Plan(past_l2 - 1, 18992), LoopedPlan(past_l2 - 1, 18992)));
  EXPECT_TRUE(SamePlan(Plan(past_l2, 18992), HeldPlan(past_l2, 18992)));
  // Past 8 blocks' registers, or within one block's, nothing is held.
  EXPECT_TRUE(SamePlan(Plan(2048, 8 * kMaxRegisterRowVecs + 1),
                       LoopedPlan(2048, 8 * kMaxRegisterRowVecs + 1)));
  EXPECT_TRUE(SamePlan(Plan(5, 3072), LoopedPlan(5, 3072)));
  EXPECT_TRUE(SamePlan(Plan(4096, 512), LoopedPlan(4096, 512)));
  // Without clusters, rows past a block's registers loop a block each.
  EXPECT_EQ(Plan(32, 18992, false).cluster, 1);
  EXPECT_EQ(Plan(32, 18992, false).rows.path, RowPath::kBlockLoop);
}

// softmax_test.cpp's split rows {100, 152063} and {40, 152063} (bf16: 19007
// body vectors) reach the looping clusters of 2 and 4 blocks.
TEST(SoftmaxPlan, TheTestedSplitRowsLoopOnClustersOfTwoAndFour) {
  for (const auto& [rows, cluster] : {std::pair{100, 2}, std::pair{40, 4}}) {
    const SoftmaxPlan p = Plan(rows, 19007);
    EXPECT_EQ(p.cluster, cluster) << rows;
    EXPECT_EQ(p.rows.path, RowPath::kBlockLoop) << rows;
  }
}

TEST(SoftmaxPlan, VocabularyRowsAreHeldByClustersOfEight) {
  const SoftmaxPlan p = HeldPlan(32, 151936 / 8);  // Qwen3 logits, bf16
  EXPECT_EQ(p.cluster, 8);
  EXPECT_EQ(p.rows.path, RowPath::kBlock8);
  EXPECT_EQ(p.rows.blocks, 32 * 8);
  EXPECT_EQ(p.rows.threads, 320);  // 2374 vectors a block, 8 a thread
}

TEST(SoftmaxPlan, LongFp32RowsAreHeldByTheSmallestClusterThatFits) {
  const SoftmaxPlan p = HeldPlan(2048, 32768 / 4);  // fp32 rows of 32768
  EXPECT_EQ(p.cluster, 2);
  EXPECT_EQ(p.rows.path, RowPath::kBlock8);
  EXPECT_EQ(p.rows.blocks, 2048 * 2);
  EXPECT_EQ(p.rows.threads, 512);
  EXPECT_EQ(HeldPlan(1000, kMaxRegisterRowVecs + 1).cluster, 2);
  EXPECT_EQ(HeldPlan(1000, 2 * kMaxRegisterRowVecs + 1).cluster, 4);
  EXPECT_EQ(HeldPlan(1000, 8 * kMaxRegisterRowVecs).cluster, 8);
  EXPECT_EQ(HeldPlan(100, 8192).cluster, 2);  // 200 blocks >= 132 SMs
  EXPECT_EQ(HeldPlan(40, 8192).cluster, 4);   // 80 would leave SMs idle
  EXPECT_EQ(HeldPlan(1, 8192).cluster, 8);
  EXPECT_EQ(HeldPlan(1, 8192).rows.threads, 128);
}

TEST(SoftmaxPlan, EveryHeldShareFitsItsBlock) {
  for (int64_t rows : {1, 7, 131, 132, 5000}) {
    for (int64_t nv = kMaxRegisterRowVecs + 1; nv <= 8 * kMaxRegisterRowVecs;
         nv = nv * 5 / 4 + 3) {
      const SoftmaxPlan p = HeldPlan(rows, nv);
      ASSERT_EQ(p.rows.path, RowPath::kBlock8) << rows << " x " << nv;
      EXPECT_EQ(p.rows.blocks, rows * p.cluster);
      EXPECT_LE(p.rows.threads, 512);
      EXPECT_EQ(p.rows.threads % 32, 0);
      const int64_t share = (nv + p.cluster - 1) / p.cluster;
      EXPECT_GE(int64_t{p.rows.threads} * 8, share) << rows << " x " << nv;
      EXPECT_LT(int64_t{p.rows.threads - 32} * 8, share) << "a warp holds nothing";
    }
  }
}

TEST(SoftmaxPlan, RowsPastEightBlocksRegistersLoop) {
  const SoftmaxPlan p = HeldPlan(32, 151936 / 4);  // fp32 vocabulary rows
  EXPECT_EQ(p.cluster, 8);
  EXPECT_EQ(p.rows.path, RowPath::kBlockLoop);
  EXPECT_EQ(HeldPlan(1000, 8 * kMaxRegisterRowVecs + 1).cluster, 1);
  EXPECT_EQ(HeldPlan(1000, 8 * kMaxRegisterRowVecs + 1).rows.path, RowPath::kBlockLoop);
}

TEST(SoftmaxPlan, LoopedClustersTakeEightForVocabularyRows) {
  const SoftmaxPlan p = LoopedPlan(32, 151936 / 8);
  EXPECT_EQ(p.cluster, 8);
  EXPECT_EQ(p.rows.path, RowPath::kBlockLoop);
  EXPECT_EQ(p.rows.blocks, 32 * 8);
  EXPECT_EQ(p.rows.threads, kLoopBlockThreads);
}

TEST(SoftmaxPlan, LoopedClusterGrowsOnlyUntilTheGpuIsFull) {
  EXPECT_EQ(LoopedPlan(100, 2500).cluster, 2);   // 200 blocks >= 132 SMs
  EXPECT_EQ(LoopedPlan(40, 20000).cluster, 4);   // 160 blocks
  EXPECT_EQ(LoopedPlan(5, 3072).cluster, 4);     // 3072 / 8 < 512 vectors a block
  EXPECT_EQ(LoopedPlan(5, 4096).cluster, 8);     // 512 vectors a block: one each
  EXPECT_EQ(LoopedPlan(132, 18992).cluster, 1);  // a block per SM already
  EXPECT_EQ(HeldPlan(5, 3072).cluster, 4);       // fits a block: the looped rule
}

TEST(SoftmaxPlan, EveryLoopedBlockOfAClusterHoldsAVectorPerThread) {
  for (int64_t rows : {1, 3, 31, 65, 131}) {
    for (int64_t nv = 1; nv <= 40000; nv = nv * 3 / 2 + 1) {
      const SoftmaxPlan p = LoopedPlan(rows, nv);
      if (p.cluster == 1) continue;
      EXPECT_GE(nv / p.cluster, kLoopBlockThreads) << rows << " x " << nv;
      EXPECT_EQ(p.rows.blocks, rows * p.cluster);
      EXPECT_LT(rows * p.cluster / 2, kSms) << "one doubling too many";
    }
  }
}

TEST(SoftmaxPlan, WithoutClustersOrWithManyRowsItIsTheRowPlan) {
  for (auto [rows, nv] : {std::pair<int64_t, int64_t>{32, 4096},
                          {5, 4096},
                          {4096, 512},
                          {2048, 4096},
                          {200, 4000},
                          {9001, 16}}) {
    const bool clusters = rows >= kSms;
    const SoftmaxPlan p = Plan(rows, nv, clusters);
    const auto want = PlanRows(rows, nv, kSms, kThreadsPerSm, kSoftmaxVecs);
    EXPECT_EQ(p.cluster, 1);
    EXPECT_EQ(p.rows.path, want.path);
    EXPECT_EQ(p.rows.threads, want.threads);
    EXPECT_EQ(p.rows.blocks, want.blocks);
  }
}

TEST(SoftmaxPlan, ShortRowsNeverCluster) {
  for (int64_t nv = 1; nv < 2 * kLoopBlockThreads; ++nv) {
    EXPECT_EQ(Plan(1, nv).cluster, 1) << nv;
  }
}

}  // namespace
