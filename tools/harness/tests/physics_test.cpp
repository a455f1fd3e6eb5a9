#include "kbuild/harness/physics.h"

#include <gtest/gtest.h>

#include <map>

namespace kb::harness {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Peak, FromBandwidthVariable) {
  std::string error;
  auto peak = PeakFromEnvironment(
      FakeEnv({{"KBUILD_PEAK_BW_GBPS", "4273"}, {"KBUILD_PEAK_TFLOPS", "990"}}), &error);
  ASSERT_TRUE(peak) << error;
  EXPECT_EQ(peak->bandwidth_gbps, 4273);
  EXPECT_EQ(peak->tflops, 990);
  EXPECT_EQ(peak->source, "KBUILD_PEAK_BW_GBPS");
}

TEST(Peak, BadNumberIsAnError) {
  std::string error;
  EXPECT_FALSE(PeakFromEnvironment(FakeEnv({{"KBUILD_PEAK_BW_GBPS", "fast"}}), &error));
  EXPECT_EQ(error,
            "KBUILD_PEAK_BW_GBPS='fast' is not a positive number\nhint: give GB/s, e.g. 4273");
}

TEST(Peak, NothingGivenIsNotAnError) {
  std::string error = "stale";
  EXPECT_FALSE(PeakFromEnvironment(FakeEnv({}), &error));
  EXPECT_EQ(error, "");
}

TEST(Peak, UnreadableGpuJson) {
  std::string error;
  EXPECT_FALSE(
      PeakFromEnvironment(FakeEnv({{"KBUILD_GPU_JSON", "/nonexistent/gpu.json"}}), &error));
  EXPECT_EQ(error,
            "KBUILD_GPU_JSON=/nonexistent/gpu.json: cannot read the file\nhint: check the path");
}

TEST(Peak, GpuJsonTopLevelOrMeasured) {
  std::string error;
  auto top =
      ParseGpuJson(R"({"copy_bandwidth_gbps": 4273.5, "peak_tflops": 990})", "gpu.json", &error);
  ASSERT_TRUE(top) << error;
  EXPECT_EQ(top->bandwidth_gbps, 4273.5);
  EXPECT_EQ(top->tflops, 990);
  EXPECT_EQ(top->source, "gpu.json");
  auto nested = ParseGpuJson(R"({"name": "H200", "measured": {"copy_bandwidth_gbps": 4000}})",
                             "g.json", &error);
  ASSERT_TRUE(nested) << error;
  EXPECT_EQ(nested->bandwidth_gbps, 4000);
  EXPECT_EQ(nested->tflops, 0);
}

TEST(Peak, GpuJsonErrorsSayWhatAndHow) {
  std::string error;
  EXPECT_FALSE(ParseGpuJson("[1, 2", "gpu.json", &error));
  EXPECT_EQ(error, "gpu.json: not a JSON object\nhint: regenerate it with `kbuild doctor --json`");
  EXPECT_FALSE(ParseGpuJson(R"({"copy_bandwidth_gbps": -1})", "gpu.json", &error));
  EXPECT_EQ(error,
            "gpu.json: no positive number 'copy_bandwidth_gbps'\nhint: measure it with `kbuild "
            "doctor` on the GPU machine, or set KBUILD_PEAK_BW_GBPS");
}

TEST(Physics, AboveMeasuredBandwidthIsImpossible) {
  Peak peak{4000, 0, "test"};
  EXPECT_FALSE(CheckPhysics(4000, 0, peak).impossible);
  EXPECT_FALSE(CheckPhysics(4000 * kImpossibleSlack, 0, peak).impossible);
  PhysicsVerdict v = CheckPhysics(9000, 0, peak);
  EXPECT_TRUE(v.impossible);
  EXPECT_EQ(v.message,
            "physically impossible: 9000 GB/s is above the measured copy bandwidth 4000 GB/s "
            "(test); the op skips work, runs outside the timed stream, or the byte count is wrong");
}

// A kernel that mostly reads may pass the copy (read + write) by more than
// noise: a cross-entropy over fp32 logits ran at 106% of the copy on the
// H200. The DRAM's theoretical rate bounds it then, with the same slack.
TEST(Physics, AReadMostlyKernelMayPassTheCopyButNotTheDramsTheoreticalRate) {
  Peak peak{4236, 0, "doctor"};
  peak.dram_gbps = 4814;
  EXPECT_FALSE(CheckPhysics(4501, 0, peak).impossible);
  EXPECT_FALSE(CheckPhysics(4814 * kImpossibleSlack, 0, peak).impossible);
  const PhysicsVerdict v = CheckPhysics(5100, 0, peak);
  EXPECT_TRUE(v.impossible);
  EXPECT_EQ(v.message,
            "physically impossible: 5100 GB/s is above the measured copy bandwidth 4236 GB/s "
            "(doctor) and the DRAM's theoretical 4814 GB/s; the op skips work, runs outside the "
            "timed stream, or the byte count is wrong");
  Peak dram_only;
  dram_only.dram_gbps = 4814;
  EXPECT_EQ(CheckPhysics(5100, 0, dram_only).message,
            "physically impossible: 5100 GB/s is above the DRAM's theoretical 4814 GB/s; the op "
            "skips work, runs outside the timed stream, or the byte count is wrong");
}

TEST(Physics, DramRateIsTwoTransfersPerClockAcrossTheBus) {
  GpuClockFacts h200{9, 0, 132, 1980000};
  h200.memory_clock_khz = 3200000;
  h200.memory_bus_bits = 6016;
  EXPECT_NEAR(TheoreticalDramGbps(h200), 4812.8, 0.05);
  h200.memory_bus_bits = 0;
  EXPECT_EQ(TheoreticalDramGbps(h200), 0);  // unknown, not a guess
  EXPECT_EQ(TheoreticalDramGbps(GpuClockFacts{}), 0);
}

TEST(Physics, AbovePeakFlopsIsImpossible) {
  Peak peak{4000, 990, "gpu.json"};
  EXPECT_FALSE(CheckPhysics(100, 900, peak).impossible);
  EXPECT_TRUE(CheckPhysics(100, 2000, peak).impossible);
}

TEST(Physics, Fp32PeakIsLanesTimesTwoTimesBoostClock) {
  const GpuClockFacts h200{9, 0, 132, 1980000};
  EXPECT_NEAR(TheoreticalPeakTflops(ComputeUnit::kFp32CudaCores, h200), 66.9, 0.05);
  const GpuClockFacts a100{8, 0, 108, 1410000};  // 64 lanes: 19.5 TFLOP/s
  EXPECT_NEAR(TheoreticalPeakTflops(ComputeUnit::kFp32CudaCores, a100), 19.5, 0.05);
  EXPECT_EQ(TheoreticalPeakTflops(ComputeUnit::kNone, h200), 0);
  EXPECT_EQ(TheoreticalPeakTflops(ComputeUnit::kFp32CudaCores, GpuClockFacts{6, 0, 56, 1480000}),
            0);  // not in the table: unknown, not a guess
  EXPECT_EQ(TheoreticalPeakTflops(ComputeUnit::kFp32CudaCores, GpuClockFacts{9, 0, 132, 0}), 0);
}

TEST(Physics, AboveTheUnitsPeakIsImpossible) {
  EXPECT_FALSE(CheckComputePeak(47, 66.9, ComputeUnit::kFp32CudaCores).impossible);
  EXPECT_FALSE(CheckComputePeak(66.9 * kImpossibleSlack, 66.9, ComputeUnit::kFp32CudaCores)
                   .impossible);
  const PhysicsVerdict tf32 = CheckComputePeak(150, 66.9, ComputeUnit::kFp32CudaCores);
  EXPECT_TRUE(tf32.impossible);
  EXPECT_NE(tf32.message.find("fp32 CUDA cores (66.9 TFLOP/s)"), std::string::npos)
      << tf32.message;
  EXPECT_FALSE(CheckComputePeak(1e9, 0, ComputeUnit::kFp32CudaCores).impossible);
}

TEST(Physics, UnknownPeakChecksNothing) { EXPECT_FALSE(CheckPhysics(1e9, 1e9, Peak{}).impossible); }

}  // namespace
}  // namespace kb::harness
