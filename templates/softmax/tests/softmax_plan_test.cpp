// Softmax's launch plan (common/softmax_plan.h) on the host: few long rows
// spread over clusters of 2-8 blocks until the GPU has a block per SM, each
// block keeping at least a vector per thread; everything else is the
// library's row plan with a budget of 8 vectors per thread.
#include "../{{python_name}}_cuda/common/softmax_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace {

using kernels_common::kLoopBlockThreads;
using kernels_common::kSoftmaxVecs;
using kernels_common::PlanRows;
using kernels_common::PlanSoftmax;
using kernels_common::RowPath;
using kernels_common::SoftmaxPlan;

constexpr int kSms = 132;  // H200
constexpr int kThreadsPerSm = 2048;

SoftmaxPlan Plan(int64_t rows, int64_t nv, bool clusters = true) {
  return PlanSoftmax(rows, nv, kSms, kThreadsPerSm, clusters);
}

TEST(SoftmaxPlan, VocabularyRowsTakeClustersOfEight) {
  const SoftmaxPlan p = Plan(32, 151936 / 8);  // Qwen3 logits, bf16
  EXPECT_EQ(p.cluster, 8);
  EXPECT_EQ(p.rows.path, RowPath::kBlockLoop);
  EXPECT_EQ(p.rows.blocks, 32 * 8);
  EXPECT_EQ(p.rows.threads, kLoopBlockThreads);
}

TEST(SoftmaxPlan, ClusterGrowsOnlyUntilTheGpuIsFull) {
  EXPECT_EQ(Plan(100, 2500).cluster, 2);   // 200 blocks >= 132 SMs
  EXPECT_EQ(Plan(40, 20000).cluster, 4);   // 160 blocks
  EXPECT_EQ(Plan(5, 3072).cluster, 4);     // 3072 / 8 < 512 vectors a block
  EXPECT_EQ(Plan(5, 4096).cluster, 8);     // 512 vectors a block: one each
  EXPECT_EQ(Plan(132, 18992).cluster, 1);  // a block per SM already
}

TEST(SoftmaxPlan, EveryBlockOfAClusterHoldsAVectorPerThread) {
  for (int64_t rows : {1, 3, 31, 65, 131}) {
    for (int64_t nv = 1; nv <= 40000; nv = nv * 3 / 2 + 1) {
      const SoftmaxPlan p = Plan(rows, nv);
      if (p.cluster == 1) continue;
      EXPECT_GE(nv / p.cluster, kLoopBlockThreads) << rows << " x " << nv;
      EXPECT_EQ(p.rows.blocks, rows * p.cluster);
      EXPECT_LT(rows * p.cluster / 2, kSms) << "one doubling too many";
    }
  }
}

TEST(SoftmaxPlan, WithoutClustersOrWithManyRowsItIsTheRowPlan) {
  for (auto [rows, nv] : {std::pair<int64_t, int64_t>{32, 18992},
                          {5, 4096},
                          {4096, 512},
                          {2048, 4096},
                          {200, 5000},
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
