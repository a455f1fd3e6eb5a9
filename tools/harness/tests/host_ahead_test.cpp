// The "host kept ahead" numbers (host_ahead.h): the lead before the timed
// loop, the pilot's spin, and when the host counts as having fallen behind.
#include "kbuild/harness/host_ahead.h"

#include <gtest/gtest.h>

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

TEST(HostAhead, LeadAndPilotSpinAreCappedAtHalfASecond) {
  EXPECT_DOUBLE_EQ(LeadUs(100, 10'000), 500'000);
  EXPECT_DOUBLE_EQ(PilotSpinUs(32), 3'200);
  EXPECT_DOUBLE_EQ(PilotSpinUs(100'000), 500'000);
}

TEST(HostAhead, EnqueuingWithinTheLeadIsFine) {
  EXPECT_EQ(HostFellBehindProblem(32, 4.0, 241.9), "");
  EXPECT_EQ(HostFellBehindProblem(32, 4.0, 242.0), "");
}

TEST(HostAhead, EnqueuingPastTheLeadSaysTheHostFellBehind) {
  EXPECT_EQ(HostFellBehindProblem(32, 4.0, 812.3),
            "the host fell behind the GPU: enqueuing 32 timed calls took 812.3 us of host "
            "time, more than the 242.0 us spin that kept the GPU ahead of them (1.5 x the "
            "pilot's 4.0 us per call + 50 us), so the GPU may have waited for the host inside a "
            "timed call\nhint: a call that waits for the GPU (a synchronize, .item(), a copy to "
            "the host) cannot be timed ahead of it, nor one whose host cost grows after the "
            "first calls (compiling, allocating) or one that enqueues more than 28 GPU "
            "operations (a stream holds 1021)");
}

TEST(HostAhead, ACappedLeadIsNamed) {
  const std::string problem = HostFellBehindProblem(32, 20'000, 612'000);
  EXPECT_NE(problem.find("more than the 500000.0 us spin that kept the GPU ahead of them (the "
                         "500 ms cap; the pilot measured 20000.0 us per call)"),
            std::string::npos)
      << problem;
}

}  // namespace
}  // namespace kb::harness
