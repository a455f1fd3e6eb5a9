// The "host kept ahead" numbers (host_ahead.h): the lead before the timed
// loop, the pilot's spin, and when the host counts as having fallen behind.
#include "kbuild/harness/host_ahead.h"

#include <gtest/gtest.h>

#include <vector>

namespace kb::harness {
namespace {

TEST(HostAhead, LeadIsOneAndAHalfPilotsPlusAnAllowance) {
  EXPECT_DOUBLE_EQ(LeadUs(32, 4.0), 1.5 * 32 * 4.0 + 50);
  EXPECT_DOUBLE_EQ(LeadUs(32, 0.0), 50);
}

TEST(HostAhead, AChunkOfIterationsFitsTheStreamsQueue) {
  // A spin, then per iteration a flush, two events and the call's operations.
  EXPECT_LE(1 + kIterationsPerSpin * (3 + kMaxOperationsPerCall), kQueueOperations);
  EXPECT_GE(kMaxOperationsPerCall, 16) << "an eager composite of ATen ops must fit";
}

TEST(HostAhead, ARetriedChunkSpinsTwiceAsLongEachAttemptUpToTheCap) {
  EXPECT_DOUBLE_EQ(RetryLeadUs(846.3, 0), 846.3);
  EXPECT_DOUBLE_EQ(RetryLeadUs(846.3, 1), 2 * 846.3);
  EXPECT_DOUBLE_EQ(RetryLeadUs(846.3, 2), 4 * 846.3);
  EXPECT_DOUBLE_EQ(RetryLeadUs(300'000, 1), 500'000);
  EXPECT_GE(kChunkAttempts, 2) << "one stall of the host must not refuse a timing";
}

TEST(HostAhead, LeadAndPilotSpinAreCappedAtHalfASecond) {
  EXPECT_DOUBLE_EQ(LeadUs(100, 10'000), 500'000);
  EXPECT_DOUBLE_EQ(PilotSpinUs(32), 3'200);
  EXPECT_DOUBLE_EQ(PilotSpinUs(100'000), 500'000);
}

// The H200 run of 2026-12-01: 32 calls of a 135 us kernel, 16.6 us of host time each, took
// 904 us to enqueue behind an 846 us spin; the GPU, busy with each call's L2 flush and kernel,
// still reached every call long after it was enqueued. Not a fall-behind.
TEST(HostAhead, EnqueuingPastTheSpinIsFineWhileTheGpuIsBusierThanTheHost) {
  std::vector<double> enqueued, reached;
  for (int i = 0; i < 32; ++i) {
    enqueued.push_back(28.3 * (i + 1));     // 904 us for all 32
    reached.push_back(846.3 + 175.0 * i);   // the spin, then flush + kernel per call
  }
  EXPECT_EQ(HostFellBehindProblem(enqueued, reached, 846.3), "");
}

TEST(HostAhead, ACallEnqueuedExactlyWhenTheGpuReachesItIsFine) {
  EXPECT_EQ(HostFellBehindProblem({10, 20}, {10, 20}, 50), "");
}

TEST(HostAhead, ACallEnqueuedAfterTheGpuReachedItIsRefused) {
  EXPECT_EQ(HostFellBehindProblem({10, 260.5, 300}, {50, 250.25, 400}, 50),
            "the host fell behind the GPU: timed call 2 of 3 was enqueued 260.5 us after the "
            "chunk's 50.0 us spin began, but the GPU reached its start event at 250.2 us, so "
            "the GPU may have waited for the host inside the timed call\nhint: a call that "
            "waits for the GPU (a synchronize, .item(), a copy to the host) cannot be timed "
            "ahead of it, nor one whose host cost grows after the first calls (compiling, "
            "allocating) or one that enqueues more than 28 GPU operations (a stream holds 1021)");
}

TEST(HostAhead, LongCallsAreTimedFewerTimesWithinTheBudget) {
  EXPECT_EQ(IterationsWithinBudget(100, 40), 100);          // a 40 us kernel: all 100
  EXPECT_EQ(IterationsWithinBudget(100, 10'000), 100);      // 10 ms: 100 fit the second
  EXPECT_EQ(IterationsWithinBudget(100, 23'390), 42);       // 8192^3 fp32 GEMM
  EXPECT_EQ(IterationsWithinBudget(100, 500'000), kMinCappedIterations);
  EXPECT_EQ(IterationsWithinBudget(5, 500'000), 5) << "never more than requested";
  EXPECT_EQ(IterationsWithinBudget(100, 0), 100) << "no warm-up time: no cut";
}

TEST(HostAhead, NoCallsIsFine) { EXPECT_EQ(HostFellBehindProblem({}, {}, 50), ""); }

}  // namespace
}  // namespace kb::harness
