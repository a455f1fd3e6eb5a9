#include "core/profile_summary.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kb {
namespace {

NcuReport RecordedReport() {
  std::ifstream in(std::string(KBUILD_TEST_DATA_DIR) + "/ncu-rmsnorm-small-shapes.csv");
  std::stringstream text;
  text << in.rdbuf();
  auto report = ParseNcuCsv(text.str());
  EXPECT_TRUE(report.ok());
  return report.ok() ? *report : NcuReport{};
}

NcuMetric Number(double value, const std::string& unit = "") {
  return {unit, value, std::to_string(value)};
}

// A kernel with every metric the summary reads.
NcuKernel Synthetic(double dram_pct, double sm_pct, double active_cycles, double warp_cycles = 8) {
  NcuKernel kernel;
  kernel.name = "k";
  kernel.block = "(256, 1, 1)";
  kernel.grid = "(1024, 1, 1)";
  kernel.metrics = {
      {"gpu__time_duration.sum", Number(2, "us")},
      {"DRAM Throughput", Number(dram_pct, "%")},
      {"Compute (SM) Throughput", Number(sm_pct, "%")},
      {"Memory Throughput", Number(dram_pct, "%")},
      {"launch__registers_per_thread", Number(32, "register/thread")},
      {"Elapsed Cycles", Number(1000, "cycle")},
      {"SM Active Cycles", Number(active_cycles, "cycle")},
      {"Warp Cycles Per Issued Instruction", Number(warp_cycles, "cycle")},
      {"Executed Instructions", Number(1e6, "inst")},
  };
  return kernel;
}

// At 512x4096 ours trails torch.compile (4.90 vs 4.32 us): its SMs sat idle a
// larger share of the kernel's time.
TEST(ProfileSummary, OursIdlesLongerThanTorchCompileAt512x4096) {
  const NcuReport report = RecordedReport();
  ASSERT_EQ(report.kernels.size(), 15u);
  const ProfileSummary ours = SummarizeKernel(report.kernels[5], {});
  const ProfileSummary compiled = SummarizeKernel(report.kernels[7], {});
  EXPECT_EQ(compiled.kernel, "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0");
  EXPECT_DOUBLE_EQ(*ours.duration_us, 4.896);
  EXPECT_DOUBLE_EQ(*compiled.duration_us, 4.32);
  EXPECT_DOUBLE_EQ(*ours.sm_idle_share, 1 - 5073.14 / 9527);
  EXPECT_DOUBLE_EQ(*compiled.sm_idle_share, 1 - 4977.97 / 8413);
  EXPECT_GT(*ours.sm_idle_share, *compiled.sm_idle_share);
  EXPECT_EQ(ours.verdict,
            "memory-bound far from peak: SMs idle 47% of the time (too few blocks or a tail; "
            "launch-bound at small sizes)");
  EXPECT_EQ(compiled.verdict,
            "memory-bound far from peak: SMs idle 41% of the time (too few blocks or a tail; "
            "launch-bound at small sizes)");
  EXPECT_TRUE(ours.missing.empty());
}

TEST(ProfileSummary, ReadsEveryFieldOfOurKernelAt128x4096) {
  const NcuReport report = RecordedReport();
  ASSERT_FALSE(report.kernels.empty());
  const ProfileSummary s = SummarizeKernel(report.kernels[0], {4800, 128 * 4096 * 2 * 2 + 8192});
  EXPECT_DOUBLE_EQ(*s.duration_us, 3.712);
  EXPECT_DOUBLE_EQ(*s.dram_pct, 5.98);
  EXPECT_DOUBLE_EQ(*s.sm_pct, 8.99);
  EXPECT_DOUBLE_EQ(*s.memory_pct, 8.20);
  EXPECT_EQ(*s.registers_per_thread, 28);
  EXPECT_EQ(*s.elapsed_cycles, 7279);
  EXPECT_DOUBLE_EQ(*s.sm_active_cycles, 2841.43);
  EXPECT_DOUBLE_EQ(*s.warp_cycles_per_issue, 17.41);
  EXPECT_EQ(*s.executed_instructions, 335872);
  EXPECT_DOUBLE_EQ(*s.achieved_gbps, 2105344 / 3712.0);
  EXPECT_DOUBLE_EQ(*s.achieved_pct_of_peak, 2105344 / 3712.0 / 4800 * 100);
  const std::string text = RenderProfileSummary(s);
  EXPECT_NE(text.find("launch      grid (128, 1, 1) x block (512, 1, 1), 28 registers/thread\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("time        3.712 us\n"), std::string::npos) << text;
  EXPECT_NE(text.find("bandwidth   567 GB/s for the case's bytes, 12% of peak\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("throughput  DRAM 6.0%, memory 8.2%, SM 9.0% of peak\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("SM active   2841 of 7279 cycles, idle 61% of the time\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("missing"), std::string::npos);
  EXPECT_TRUE(text.ends_with("verdict     " + s.verdict + "\n")) << text;
  const nlohmann::json json = ProfileSummaryJson(s);
  EXPECT_EQ(json["registers_per_thread"], 28);
  EXPECT_EQ(json["verdict"], s.verdict);
  EXPECT_DOUBLE_EQ(json["duration_us"].get<double>(), 3.712);
}

TEST(ProfileSummary, VerdictMemoryBoundNearPeak) {
  EXPECT_EQ(SummarizeKernel(Synthetic(85, 30, 990), {}).verdict, "memory-bound near peak");
}

TEST(ProfileSummary, VerdictComputeBound) {
  EXPECT_EQ(SummarizeKernel(Synthetic(30, 75, 990), {}).verdict, "compute-bound");
}

TEST(ProfileSummary, VerdictMemoryBoundFarFromPeakWithBusySmsStalled) {
  EXPECT_EQ(SummarizeKernel(Synthetic(55, 30, 950, 24.5), {}).verdict,
            "memory-bound far from peak: SMs busy, latency: 24.5 warp cycles per issued "
            "instruction (more bytes in flight per thread or more resident warps)");
  EXPECT_EQ(SummarizeKernel(Synthetic(55, 30, 950, 6), {}).verdict,
            "memory-bound far from peak: SMs busy and issuing (6.0 warp cycles per issued "
            "instruction): check the access pattern and the bytes moved");
}

TEST(ProfileSummary, VerdictMemoryBoundFarFromPeakWithIdleSms) {
  EXPECT_EQ(SummarizeKernel(Synthetic(55, 30, 500), {}).verdict,
            "memory-bound far from peak: SMs idle 50% of the time (too few blocks or a tail; "
            "launch-bound at small sizes)");
}

TEST(ProfileSummary, VerdictLatencyBound) {
  EXPECT_EQ(SummarizeKernel(Synthetic(20, 30, 950, 20), {}).verdict,
            "latency-bound: DRAM 20%, SM 30%, 20.0 warp cycles per issued instruction");
}

TEST(ProfileSummary, VerdictMixedWhenNeitherUnitSaturates) {
  EXPECT_EQ(SummarizeKernel(Synthetic(45, 50, 950), {}).verdict,
            "mixed: DRAM 45%, SM 50%, neither saturated");
}

TEST(ProfileSummary, MissingMetricsAreListedNotInvented) {
  NcuKernel kernel = Synthetic(55, 30, 500);
  kernel.metrics.erase("gpu__time_duration.sum");
  kernel.metrics.erase("SM Active Cycles");
  kernel.metrics.erase("Warp Cycles Per Issued Instruction");
  kernel.metrics["Executed Instructions"] = {"inst", std::nullopt, "n/a"};
  const ProfileSummary s = SummarizeKernel(kernel, {4800, 1e6});
  EXPECT_EQ(s.missing, (std::vector<std::string>{"gpu__time_duration.sum", "SM Active Cycles",
                                                 "Warp Cycles Per Issued Instruction",
                                                 "Executed Instructions"}));
  EXPECT_FALSE(s.duration_us);
  EXPECT_FALSE(s.sm_idle_share);
  EXPECT_FALSE(s.achieved_gbps);
  EXPECT_EQ(s.verdict, "memory-bound far from peak: SM activity unknown (cycle counts missing)");
  const std::string text = RenderProfileSummary(s);
  EXPECT_NE(text.find("time        ?\n"), std::string::npos) << text;
  EXPECT_NE(text.find("missing     gpu__time_duration.sum, SM Active Cycles, "), std::string::npos)
      << text;
  EXPECT_TRUE(ProfileSummaryJson(s)["duration_us"].is_null());

  kernel.metrics.erase("DRAM Throughput");
  EXPECT_EQ(SummarizeKernel(kernel, {}).verdict, "unknown: DRAM Throughput missing");
}

TEST(ProfileSummary, DurationFallsBackToTheSectionAndNormalisesUnits) {
  NcuKernel kernel = Synthetic(55, 30, 500);
  kernel.metrics.erase("gpu__time_duration.sum");
  kernel.metrics["Duration"] = Number(1.5, "ms");
  EXPECT_DOUBLE_EQ(*SummarizeKernel(kernel, {}).duration_us, 1500);
  kernel.metrics["Duration"] = Number(2500, "nsecond");
  EXPECT_DOUBLE_EQ(*SummarizeKernel(kernel, {}).duration_us, 2.5);
}

}  // namespace
}  // namespace kb
