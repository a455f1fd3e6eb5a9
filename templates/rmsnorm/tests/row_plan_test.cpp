// The row plan (common/row_plan.h) on the host, for every row length up to
// the two-pass path and row counts from 1 to past the grid's limits: each
// plan gives every row its threads and every vector a thread, stays inside
// the kernels' launch bounds, and packs short rows several to a warp. A plan
// that leaves a vector without a thread leaves output unwritten on the GPU.
#include "../{{python_name}}_cuda/common/row_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using kernels_common::kMaxBlockThreads;
using kernels_common::kMaxRegisterRowVecs;
using kernels_common::kWarpSize;
using kernels_common::kWholeBlock;
using kernels_common::PlanRows;
using kernels_common::RowPlan;
using kernels_common::RowShape;
using kernels_common::ShapeOf;

constexpr int kSms = 132;  // H200
constexpr int kThreadsPerSm = 2048;

void ExpectEveryRowAndVectorCovered(int64_t rows, int64_t nv,
                                    int max_vecs = kernels_common::kDefaultRowVecs,
                                    int short_row_vecs = 1) {
  const RowPlan p = PlanRows(rows, nv, kSms, kThreadsPerSm, max_vecs,
                             kernels_common::kMaxGroupWarps, short_row_vecs);
  const RowShape s = ShapeOf(p.path);
  SCOPED_TRACE("rows " + std::to_string(rows) + ", vectors per row " + std::to_string(nv) +
               ", budget " + std::to_string(max_vecs) + ", short-row vectors " +
               std::to_string(short_row_vecs));
  EXPECT_LE(s.vecs, max_vecs) << "a thread holds more than the op's register budget";
  EXPECT_EQ(p.threads % kWarpSize, 0);
  EXPECT_GE(p.threads, kWarpSize);
  EXPECT_LE(p.threads, kMaxBlockThreads);
  if (s.group == kWholeBlock) {
    EXPECT_EQ(p.blocks, rows);
    if (s.vecs == 0) {
      EXPECT_GT(nv, kernels_common::MaxRegisterRowVecs(max_vecs))
          << "two passes for a row registers hold";
    } else {
      EXPECT_GE(int64_t{p.threads} * s.vecs, nv);
    }
    return;
  }
  EXPECT_EQ(kWarpSize % s.group, 0) << "a group of lanes spans two warps";
  EXPECT_GE(int64_t{s.group} * s.vecs, nv);
  const int64_t rows_per_block = p.threads / s.group;
  EXPECT_GE(p.blocks * rows_per_block, rows);
  EXPECT_LT((p.blocks - 1) * rows_per_block, rows) << "a block without a row";
}

TEST(RowPlan, EveryRowAndVectorHasAThread) {
  const int64_t row_counts[] = {
      1, 2, 7, 131, 4099, 65537, 27030 * 24, int64_t{1} << 31, (int64_t{1} << 31) + 1};
  for (int64_t rows : row_counts) {
    for (int64_t nv = 1; nv <= kMaxRegisterRowVecs + 2; ++nv) {
      ExpectEveryRowAndVectorCovered(rows, nv);
    }
  }
}

// An op that holds more per element (two inputs, a running state) plans with
// a smaller budget: no thread holds more vectors than it, and rows longer
// than budget x 512 threads take the two-pass path.
TEST(RowPlan, EveryRowAndVectorHasAThreadWithinEachBudget) {
  for (int max_vecs : {2, 4}) {
    for (int64_t rows : {int64_t{1}, int64_t{4099}, int64_t{1} << 31}) {
      for (int64_t nv = 1; nv <= kMaxRegisterRowVecs + 2; nv += (nv < 160 ? 1 : 97)) {
        ExpectEveryRowAndVectorCovered(rows, nv, max_vecs);
      }
    }
  }
  EXPECT_EQ(ShapeOf(PlanRows(4096, 2048, kSms, kThreadsPerSm, 4).path).vecs, 4);
  EXPECT_EQ(ShapeOf(PlanRows(4096, 2049, kSms, kThreadsPerSm, 4).path).vecs, 0);
  EXPECT_EQ(ShapeOf(PlanRows(4096, 1025, kSms, kThreadsPerSm, 2).path).vecs, 0);
  EXPECT_EQ(ShapeOf(PlanRows(4096, 100, kSms, kThreadsPerSm, 2).path).vecs, 2);
}

// Rows of up to 32 vectors take the smallest group of lanes that gives each
// vector a lane (at least 4): rows of 128 bf16 elements (16 vectors) run 2 to
// a warp, rows of 64 (8 vectors) 4 to a warp.
TEST(RowPlan, ShortRowsShareWarps) {
  for (int64_t rows : {1, 4099, 27030 * 24}) {
    for (int64_t nv = 1; nv <= kWarpSize; ++nv) {
      const RowShape s = ShapeOf(PlanRows(rows, nv, kSms, kThreadsPerSm).path);
      SCOPED_TRACE("rows " + std::to_string(rows) + ", vectors per row " + std::to_string(nv));
      EXPECT_EQ(s.vecs, 1);
      EXPECT_GE(s.group, nv);
      EXPECT_TRUE(s.group == 4 || s.group / 2 < nv) << "group " << s.group;
    }
  }
}

// With two vectors a lane (a tune knob), rows of 5-32 vectors take half the
// lanes: rows of 128 bf16 elements (16 vectors) 8 lanes of two, 4 to a warp;
// every row and vector still has its thread, and rows of up to 4 vectors and
// longer rows plan as before.
TEST(RowPlan, ShortRowsWithTwoVectorsPerLane) {
  for (int64_t rows : {int64_t{1}, int64_t{4099}, int64_t{27030} * 24, int64_t{1} << 31}) {
    for (int64_t nv = 1; nv <= 160; ++nv) {
      ExpectEveryRowAndVectorCovered(rows, nv, kernels_common::kDefaultRowVecs, 2);
      const RowShape two = ShapeOf(PlanRows(rows, nv, kSms, kThreadsPerSm,
                                            kernels_common::kDefaultRowVecs,
                                            kernels_common::kMaxGroupWarps, 2).path);
      const RowShape one = ShapeOf(PlanRows(rows, nv, kSms, kThreadsPerSm).path);
      SCOPED_TRACE("rows " + std::to_string(rows) + ", vectors per row " + std::to_string(nv));
      if (nv > 4 && nv <= kWarpSize) {
        EXPECT_EQ(two.vecs, 2);
        EXPECT_LT(int64_t{two.group}, nv) << "a lane of two vectors would hold one";
        EXPECT_GE(int64_t{two.group} * 2, nv);
      } else {
        EXPECT_EQ(two.group, one.group);
        EXPECT_EQ(two.vecs, one.vecs);
      }
    }
  }
  EXPECT_EQ(ShapeOf(PlanRows(27030 * 24, 16, kSms, kThreadsPerSm, 8, 8, 2).path).group, 8);
  EXPECT_EQ(ShapeOf(PlanRows(131072, 8, kSms, kThreadsPerSm, 8, 8, 2).path).group, 4);
}

// Few rows still spread over the SMs: fewer rows per block, not fewer blocks.
TEST(RowPlan, FewShortRowsUseSmallBlocks) {
  const RowPlan few = PlanRows(64, 16, kSms, kThreadsPerSm);
  EXPECT_EQ(few.threads, kWarpSize);
  EXPECT_EQ(few.blocks, 32);
  const RowPlan many = PlanRows(27030 * 24, 16, kSms, kThreadsPerSm);
  EXPECT_EQ(many.threads, 8 * kWarpSize);
}

}  // namespace
