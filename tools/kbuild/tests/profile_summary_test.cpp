#include "core/profile_summary.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/profile_render.h"
#include "test_data.h"

namespace kb {
namespace {

NcuReport RecordedReport() {
  auto report = ParseNcuCsv(ReadTestData("ncu-rmsnorm-small-shapes.csv"));
  EXPECT_TRUE(report.ok());
  return report.ok() ? *report : NcuReport{};
}

NcuMetric Number(double value, const std::string& unit = "") {
  return {unit, value, std::to_string(value)};
}

// Replaces every row of `name` with one.
void Set(NcuKernel& kernel, const std::string& name, NcuMetric metric) {
  kernel.metrics.erase(name);
  kernel.metrics.emplace(name, std::move(metric));
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
      {"dram__bytes.sum.per_second", Number(dram_pct * 48e9, "byte/second")},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", Number(80, "%")},
      {"sm__maximum_warps_per_active_cycle_pct", Number(100, "%")},
      {"launch__shared_mem_per_block_static", Number(0, "byte")},
      {"launch__shared_mem_per_block_dynamic", Number(0, "byte")},
      {"smsp__sass_inst_executed_op_local_ld.sum", Number(0, "inst")},
      {"smsp__sass_inst_executed_op_local_st.sum", Number(0, "inst")},
      {"l1tex__t_sector_hit_rate.pct", Number(0, "%")},
      {"lts__t_sector_hit_rate.pct", Number(50, "%")},
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", Number(100, "%")},
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", Number(100, "%")},
      {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
       Number(warp_cycles / 2)},
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
  // The recorded report predates the occupancy, cache, coalescing and stall metrics: they are
  // listed as missing, the ones the verdict needs are not.
  for (const char* name : {"gpu__time_duration.sum", "DRAM Throughput", "Compute (SM) Throughput",
                           "SM Active Cycles", "Warp Cycles Per Issued Instruction"}) {
    EXPECT_EQ(std::count(ours.missing.begin(), ours.missing.end(), name), 0) << name;
  }
  EXPECT_EQ(std::count(ours.missing.begin(), ours.missing.end(), "l1tex__t_sector_hit_rate.pct"),
            1);
  EXPECT_TRUE(ours.causes.empty());
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
  EXPECT_NE(text.find("missing     dram__bytes.sum.per_second, "), std::string::npos) << text;
  EXPECT_NE(text.find("stalls      ?\n"), std::string::npos) << text;
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
  Set(kernel, "Executed Instructions", {"inst", std::nullopt, "n/a"});
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
  Set(kernel, "Duration", Number(1.5, "ms"));
  EXPECT_DOUBLE_EQ(*SummarizeKernel(kernel, {}).duration_us, 1500);
  Set(kernel, "Duration", Number(2500, "nsecond"));
  EXPECT_DOUBLE_EQ(*SummarizeKernel(kernel, {}).duration_us, 2.5);
}

NcuReport SyntheticReport() {
  // Hand-written in ncu's CSV format (not measured): a coalesced kernel near
  // DRAM peak, the harness's spin kernel, and a strided kernel with a
  // run-time-indexed local array. The same kernels' real SASS is in
  // cuobjdump-sass-demo-sm90a.txt.
  auto report = ParseNcuCsv(ReadTestData("ncu-synthetic-good-and-bad-kernels.csv"));
  EXPECT_TRUE(report.ok());
  return report.ok() ? *report : NcuReport{};
}

TEST(ProfileSummary, TellsACoalescedKernelFromAnUncoalescedSpillingOne) {
  const NcuReport report = SyntheticReport();
  ASSERT_EQ(report.kernels.size(), 3u);
  const ProfileSummary good = SummarizeKernel(report.kernels[0], {4800, std::nullopt});
  const ProfileSummary bad = SummarizeKernel(report.kernels[2], {4800, std::nullopt});
  EXPECT_TRUE(good.missing.empty()) << ::testing::PrintToString(good.missing);
  EXPECT_TRUE(bad.missing.empty()) << ::testing::PrintToString(bad.missing);
  EXPECT_EQ(good.verdict, "memory-bound near peak");
  EXPECT_TRUE(good.causes.empty());
  // The access pattern leads: it is why the warps wait.
  EXPECT_EQ(bad.verdict,
            "uncoalesced global loads: 6% of each 32-byte sector is used (neighbouring threads "
            "should touch neighbouring addresses); uncoalesced global stores: 12% of each 32-byte "
            "sector is used (neighbouring threads should touch neighbouring addresses); "
            "local-memory traffic: 262144 loads and 262144 stores executed (register spills or "
            "an array indexed at run time); memory-bound far from peak: SMs busy, latency: 52.7 "
            "warp cycles per issued instruction (more bytes in flight per thread or more "
            "resident warps)");
  EXPECT_EQ(bad.causes.size(), 3u);
  EXPECT_NEAR(*good.dram_gbps, 4251.223, 0.001);
  EXPECT_NEAR(*good.dram_pct_of_measured, 88.57, 0.01);
  EXPECT_EQ(good.occupancy_limiter, "warps (block size)");
  EXPECT_EQ(bad.occupancy_limiter, "warps (block size)");
  ASSERT_EQ(bad.top_stalls.size(), 3u);
  EXPECT_EQ(bad.top_stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(bad.top_stalls[1].reason, "lg_throttle");
  EXPECT_EQ(bad.top_stalls[2].reason, "wait");  // "selected" is issuing, not a stall

  const std::string text = RenderProfileSummary(bad);
  for (const char* line :
       {"DRAM        2016 GB/s, 41.8% of peak, 42% of the measured copy bandwidth\n",
        "occupancy   achieved 71.2% of theoretical 100.0%, limited by warps (block size)\n",
        "memory use  shared 0 B/block; local memory 262144 loads, 262144 stores executed\n",
        "caches      L1 hit 9.8%, L2 hit 61.4%\n",
        "coalescing  global loads use 6.2% of each sector, stores 12.5%\n",
        "stalls      long_scoreboard 38.6 (waiting for global/local memory), lg_throttle 9.4 "
        "(global/local memory queue full), wait 1.2 (fixed-latency dependency) cycles per "
        "issued instruction\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
  const nlohmann::json json = ProfileSummaryJson(bad);
  for (const char* key : {"id",
                          "kernel",
                          "ncu_name",
                          "block",
                          "grid",
                          "duration_us",
                          "dram_throughput_pct",
                          "dram_gbps",
                          "dram_pct_of_measured_peak",
                          "sm_throughput_pct",
                          "memory_throughput_pct",
                          "registers_per_thread",
                          "shared_bytes_per_block",
                          "achieved_occupancy_pct",
                          "theoretical_occupancy_pct",
                          "occupancy_limiter",
                          "local_loads",
                          "local_stores",
                          "l1_hit_pct",
                          "l2_hit_pct",
                          "load_sector_use_pct",
                          "store_sector_use_pct",
                          "top_stalls",
                          "elapsed_cycles",
                          "sm_active_cycles",
                          "sm_idle_share",
                          "warp_cycles_per_issued_instruction",
                          "executed_instructions",
                          "achieved_gbps",
                          "achieved_pct_of_peak",
                          "missing",
                          "causes",
                          "verdict"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_EQ(json.size(), 33u);
  EXPECT_EQ(json["top_stalls"][0]["reason"], "long_scoreboard");
  EXPECT_DOUBLE_EQ(json["top_stalls"][0]["cycles_per_issued_instruction"].get<double>(), 38.6);
  EXPECT_EQ(json["causes"].size(), 3u);
}

// The recorded H200 run printed "memory 3412456802383.3%": the byte/second row
// of MemoryWorkloadAnalysis had replaced SpeedOfLight's percent.
TEST(ProfileSummary, MemoryThroughputIsThePercentRowNotTheByteRate) {
  NcuKernel kernel = Synthetic(71, 50, 950, 25.8);
  kernel.metrics.emplace(
      "Memory Throughput",
      NcuMetric{"byte/second", 3412456802383.3, "3412456802383.3", "Memory Workload Analysis"});
  const ProfileSummary s = SummarizeKernel(kernel, {});
  EXPECT_EQ(s.memory_pct, 71);
  EXPECT_NE(RenderProfileSummary(s).find("throughput  DRAM 71.0%, memory 71.0%, SM 50.0%"),
            std::string::npos);
  kernel.metrics.erase("Memory Throughput");
  kernel.metrics.emplace("Memory Throughput",
                         NcuMetric{"byte/second", 3412456802383.3, "3412456802383.3", ""});
  const ProfileSummary only_rate = SummarizeKernel(kernel, {});
  EXPECT_FALSE(only_rate.memory_pct);
  EXPECT_NE(std::find(only_rate.missing.begin(), only_rate.missing.end(), "Memory Throughput"),
            only_rate.missing.end());
}

TEST(ProfileSummary, StructuralCausesLeadTheVerdictOtherCausesFollow) {
  NcuKernel kernel = Synthetic(19, 5, 950, 357.6);
  Set(kernel, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", Number(12.5, "%"));
  Set(kernel, "smsp__sass_inst_executed_op_local_ld.sum", Number(524288, "inst"));
  Set(kernel, "sm__maximum_warps_per_active_cycle_pct", Number(25, "%"));
  Set(kernel, "launch__occupancy_limit_registers", Number(1, "block"));
  const ProfileSummary s = SummarizeKernel(kernel, {});
  EXPECT_EQ(s.verdict,
            "uncoalesced global loads: 12% of each 32-byte sector is used (neighbouring threads "
            "should touch neighbouring addresses); local-memory traffic: 524288 loads and 0 "
            "stores executed (register spills or an array indexed at run time); memory-bound far "
            "from peak: SMs busy, latency: 357.6 warp cycles per issued instruction (more bytes "
            "in flight per thread or more resident warps); occupancy limited to 25% by registers");
  EXPECT_EQ(s.causes.size(), 3u);
  EXPECT_EQ(s.causes.back(), "occupancy limited to 25% by registers");
}

TEST(ProfileSummary, ShowsTheDemangledNameAndKeepsNcus) {
  NcuKernel kernel = Synthetic(85, 30, 990);
  kernel.name =
      "_ZN11bad_kernels45_GLOBAL__N__afc59adf_12_slow_copy_cu_8fdd805714SlowCopyKernelEPfPKfli";
  const ProfileSummary s = SummarizeKernel(kernel, {});
  EXPECT_EQ(s.kernel,
            "bad_kernels::(anonymous namespace)::SlowCopyKernel(float*, float const*, long, int)");
  EXPECT_EQ(s.ncu_name, kernel.name);
  EXPECT_TRUE(RenderProfileSummary(s).starts_with(
      "kernel      bad_kernels::(anonymous namespace)::SlowCopyKernel(float*, float const*, "
      "long, int) (ID 0)\n"));
  EXPECT_EQ(ProfileSummaryJson(s)["ncu_name"], kernel.name);
}

TEST(ProfileSummary, LowTheoreticalOccupancyIsACause) {
  NcuKernel kernel = Synthetic(55, 30, 950, 24.5);
  Set(kernel, "sm__maximum_warps_per_active_cycle_pct", Number(25, "%"));
  Set(kernel, "launch__occupancy_limit_registers", Number(1, "block"));
  Set(kernel, "launch__occupancy_limit_warps", Number(8, "block"));
  const ProfileSummary s = SummarizeKernel(kernel, {});
  EXPECT_EQ(s.causes, (std::vector<std::string>{"occupancy limited to 25% by registers"}));
  EXPECT_TRUE(s.verdict.ends_with("; occupancy limited to 25% by registers")) << s.verdict;
}

}  // namespace
}  // namespace kb
