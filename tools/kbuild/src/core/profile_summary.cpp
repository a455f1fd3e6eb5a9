#include "core/profile_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "core/kernel_names.h"

namespace kb {

namespace {

constexpr const char kDurationMetric[] = "gpu__time_duration.sum";
constexpr const char kDurationSection[] = "Duration";
constexpr const char kDram[] = "DRAM Throughput";
constexpr const char kSm[] = "Compute (SM) Throughput";
constexpr const char kMemory[] = "Memory Throughput";
constexpr const char kRegisters[] = "launch__registers_per_thread";
constexpr const char kRegistersSection[] = "Registers Per Thread";  // LaunchStats
constexpr const char kElapsed[] = "Elapsed Cycles";
constexpr const char kSmActive[] = "SM Active Cycles";
constexpr const char kWarpCycles[] = "Warp Cycles Per Issued Instruction";
constexpr const char kInstructions[] = "Executed Instructions";
constexpr const char kDramPerSecond[] = "dram__bytes.sum.per_second";
constexpr const char kAchievedOccupancy[] = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char kTheoreticalOccupancy[] = "sm__maximum_warps_per_active_cycle_pct";
constexpr const char kSharedStatic[] = "launch__shared_mem_per_block_static";
constexpr const char kSharedDynamic[] = "launch__shared_mem_per_block_dynamic";
constexpr const char kLocalLoads[] = "smsp__sass_inst_executed_op_local_ld.sum";
constexpr const char kLocalStores[] = "smsp__sass_inst_executed_op_local_st.sum";
constexpr const char kL1Hit[] = "l1tex__t_sector_hit_rate.pct";
constexpr const char kL2Hit[] = "lts__t_sector_hit_rate.pct";
constexpr const char kLoadSectorUse[] =
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
constexpr const char kStoreSectorUse[] =
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct";
constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";

// Blocks per SM each resource allows (raw metric, Occupancy section name, what limits).
struct BlockLimit {
  const char* metric;
  const char* section_name;
  const char* resource;
};
constexpr BlockLimit kBlockLimits[] = {
    {"launch__occupancy_limit_registers", "Block Limit Registers", "registers"},
    {"launch__occupancy_limit_shared_mem", "Block Limit Shared Mem", "shared memory"},
    {"launch__occupancy_limit_warps", "Block Limit Warps", "warps (block size)"},
    {"launch__occupancy_limit_blocks", "Block Limit SM", "blocks per SM"},
};

// Microseconds per unit of ncu's time units (short names since ncu 2023,
// "nsecond" before).
std::optional<double> MicrosecondsPer(const std::string& unit) {
  const std::pair<const char*, double> units[] = {
      {"ns", 1e-3}, {"nsecond", 1e-3}, {"us", 1},  {"usecond", 1},
      {"ms", 1e3},  {"msecond", 1e3},  {"s", 1e6}, {"second", 1e6}};
  for (const auto& [name, scale] : units) {
    if (unit == name) return scale;
  }
  return std::nullopt;
}

std::optional<double> DurationUs(const NcuKernel& kernel) {
  for (const char* name : {kDurationMetric, kDurationSection}) {
    const NcuMetric* metric = kernel.Find(name);
    if (!metric || !metric->value) continue;
    if (const auto scale = MicrosecondsPer(metric->unit)) return *metric->value * *scale;
  }
  return std::nullopt;
}

// GB/s from a byte rate in whatever unit ncu printed ("byte/second" with
// --print-units base, "Tbyte/s" otherwise).
std::optional<double> GigabytesPerSecond(const NcuMetric& metric) {
  if (!metric.value || metric.unit.find("byte/s") == std::string::npos) return std::nullopt;
  const std::pair<char, double> prefixes[] = {{'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}};
  double scale = 1;
  for (const auto& [prefix, factor] : prefixes) {
    if (!metric.unit.empty() && metric.unit[0] == prefix) scale = factor;
  }
  return *metric.value * scale / 1e9;
}

// The resource allowing the fewest blocks per SM ("registers and warps" on a tie).
std::string OccupancyLimiter(const NcuKernel& kernel) {
  std::optional<double> fewest;
  std::vector<std::string> limiters;
  for (const BlockLimit& limit : kBlockLimits) {
    auto blocks = kernel.Value(limit.metric);
    if (!blocks) blocks = kernel.Value(limit.section_name);
    if (!blocks) continue;
    if (!fewest || *blocks < *fewest) {
      fewest = blocks;
      limiters = {limit.resource};
    } else if (*blocks == *fewest) {
      limiters.push_back(limit.resource);
    }
  }
  return fmt::format("{}", fmt::join(limiters, " and "));
}

// The largest stall reasons; "selected" is the warp issuing, not a stall.
std::vector<WarpStall> TopStalls(const NcuKernel& kernel) {
  std::vector<WarpStall> stalls;
  for (const auto& [name, metric] : kernel.metrics) {
    if (!name.starts_with(kStallPrefix) || !name.ends_with(kStallSuffix) || !metric.value) continue;
    std::string reason =
        name.substr(kStallPrefix.size(), name.size() - kStallPrefix.size() - kStallSuffix.size());
    if (reason == "selected" || reason.find("not_issued") != std::string::npos) continue;
    if (*metric.value > 0) stalls.push_back({std::move(reason), *metric.value});
  }
  std::stable_sort(stalls.begin(), stalls.end(),
                   [](const WarpStall& a, const WarpStall& b) { return a.cycles > b.cycles; });
  if (stalls.size() > kTopStalls) stalls.resize(kTopStalls);
  return stalls;
}

// What the counters name as wrong with the access pattern, whatever the
// verdict: these are what a slow kernel's author fixes first, and they explain
// the latency (lg_throttle behind wasted sectors and local memory).
std::vector<std::string> StructuralCauses(const ProfileSummary& s) {
  std::vector<std::string> causes;
  const auto sectors = [&causes](const std::optional<double>& pct, const char* what) {
    if (pct && *pct < kUncoalescedSectorUsePct) {
      causes.push_back(fmt::format(
          "uncoalesced global {}: {:.0f}% of each 32-byte sector is used (neighbouring threads "
          "should touch neighbouring addresses)",
          what, *pct));
    }
  };
  sectors(s.load_sector_use_pct, "loads");
  sectors(s.store_sector_use_pct, "stores");
  const double local = s.local_loads.value_or(0) + s.local_stores.value_or(0);
  if (local > 0) {
    causes.push_back(fmt::format(
        "local-memory traffic: {:.0f} loads and {:.0f} stores executed (register spills or an "
        "array indexed at run time)",
        s.local_loads.value_or(0), s.local_stores.value_or(0)));
  }
  return causes;
}

std::vector<std::string> OtherCauses(const ProfileSummary& s) {
  std::vector<std::string> causes;
  if (s.theoretical_occupancy_pct && *s.theoretical_occupancy_pct < kLowOccupancyPct) {
    causes.push_back(fmt::format("occupancy limited to {:.0f}% by {}", *s.theoretical_occupancy_pct,
                                 s.occupancy_limiter.empty() ? "?" : s.occupancy_limiter));
  }
  return causes;
}

// The first of `names` ncu reported as a number; otherwise the first name is missing.
std::optional<double> Metric(const NcuKernel& kernel, std::vector<std::string>& missing,
                             std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (const auto value = kernel.Value(name)) return value;
  }
  missing.push_back(*names.begin());
  return std::nullopt;
}

// Why a kernel that moves bytes is far from DRAM peak: SMs idle (the launch
// does not cover the kernel's time) or SMs busy but waiting.
std::string FarFromPeakReason(const ProfileSummary& s) {
  if (s.sm_idle_share && *s.sm_idle_share > kIdleShare) {
    return fmt::format(
        "SMs idle {:.0f}% of the time (too few blocks or a tail; launch-bound at small sizes)",
        *s.sm_idle_share * 100);
  }
  if (!s.warp_cycles_per_issue) {
    return s.sm_idle_share ? "SMs busy; warp stall cycles missing"
                           : "SM activity unknown (cycle counts missing)";
  }
  if (*s.warp_cycles_per_issue >= kHighWarpCyclesPerIssue) {
    return fmt::format(
        "SMs busy, latency: {:.1f} warp cycles per issued instruction (more bytes in flight "
        "per thread or more resident warps)",
        *s.warp_cycles_per_issue);
  }
  return fmt::format(
      "SMs busy and issuing ({:.1f} warp cycles per issued instruction): check the access "
      "pattern and the bytes moved",
      *s.warp_cycles_per_issue);
}

std::string Verdict(const ProfileSummary& s) {
  if (!s.dram_pct || !s.sm_pct) {
    return fmt::format("unknown: {} missing", !s.dram_pct ? kDram : kSm);
  }
  const double dram = *s.dram_pct, sm = *s.sm_pct;
  if (dram >= kNearPeakPct) return "memory-bound near peak";
  if (sm >= kComputeBoundPct && sm > dram) return "compute-bound";
  // Below kLowThroughputPct neither unit limits the kernel, so which of the
  // two is higher says little; idle SMs then explain the time instead.
  const bool both_low = dram < kLowThroughputPct && sm < kLowThroughputPct;
  const bool idle = s.sm_idle_share && *s.sm_idle_share > kIdleShare;
  if (dram > sm || (both_low && idle)) {
    return "memory-bound far from peak: " + FarFromPeakReason(s);
  }
  if (both_low) {
    return s.warp_cycles_per_issue
               ? fmt::format(
                     "latency-bound: DRAM {:.0f}%, SM {:.0f}%, {:.1f} warp cycles per "
                     "issued instruction",
                     dram, sm, *s.warp_cycles_per_issue)
               : fmt::format("latency-bound: DRAM {:.0f}%, SM {:.0f}%", dram, sm);
  }
  return fmt::format("mixed: DRAM {:.0f}%, SM {:.0f}%, neither saturated", dram, sm);
}

}  // namespace

ProfileSummary SummarizeKernel(const NcuKernel& kernel, const ProfileContext& context) {
  ProfileSummary s;
  s.id = kernel.id;
  s.kernel = DisplayKernelName(kernel.name);
  s.ncu_name = kernel.name;
  s.block = kernel.block;
  s.grid = kernel.grid;
  s.duration_us = DurationUs(kernel);
  if (!s.duration_us) s.missing.push_back(kDurationMetric);
  s.dram_pct = Metric(kernel, s.missing, {kDram});
  s.sm_pct = Metric(kernel, s.missing, {kSm});
  // MemoryWorkloadAnalysis has a byte/second "Memory Throughput" too.
  s.memory_pct = kernel.Value(kMemory, "%");
  if (!s.memory_pct) s.missing.push_back(kMemory);
  s.registers_per_thread = Metric(kernel, s.missing, {kRegisters, kRegistersSection});
  s.elapsed_cycles = Metric(kernel, s.missing, {kElapsed});
  s.sm_active_cycles = Metric(kernel, s.missing, {kSmActive});
  s.warp_cycles_per_issue = Metric(kernel, s.missing, {kWarpCycles});
  s.executed_instructions = Metric(kernel, s.missing, {kInstructions});
  if (s.elapsed_cycles && s.sm_active_cycles && *s.elapsed_cycles > 0) {
    s.sm_idle_share = 1 - *s.sm_active_cycles / *s.elapsed_cycles;
  }
  if (context.bytes && s.duration_us && *s.duration_us > 0) {
    s.achieved_gbps = *context.bytes / (*s.duration_us * 1e3);  // bytes per ns = GB/s
    if (context.peak_dram_gbps && *context.peak_dram_gbps > 0) {
      s.achieved_pct_of_peak = *s.achieved_gbps / *context.peak_dram_gbps * 100;
    }
  }
  if (const NcuMetric* rate = kernel.Find(kDramPerSecond)) s.dram_gbps = GigabytesPerSecond(*rate);
  if (!s.dram_gbps) s.missing.push_back(kDramPerSecond);
  if (s.dram_gbps && context.peak_dram_gbps && *context.peak_dram_gbps > 0) {
    s.dram_pct_of_measured = *s.dram_gbps / *context.peak_dram_gbps * 100;
  }
  s.achieved_occupancy_pct = Metric(kernel, s.missing, {kAchievedOccupancy, "Achieved Occupancy"});
  s.theoretical_occupancy_pct =
      Metric(kernel, s.missing, {kTheoreticalOccupancy, "Theoretical Occupancy"});
  s.occupancy_limiter = OccupancyLimiter(kernel);
  const auto shared_static =
      Metric(kernel, s.missing, {kSharedStatic, "Static Shared Memory Per Block"});
  const auto shared_dynamic =
      Metric(kernel, s.missing, {kSharedDynamic, "Dynamic Shared Memory Per Block"});
  if (shared_static && shared_dynamic) s.shared_bytes_per_block = *shared_static + *shared_dynamic;
  s.local_loads = Metric(kernel, s.missing, {kLocalLoads});
  s.local_stores = Metric(kernel, s.missing, {kLocalStores});
  s.l1_hit_pct = Metric(kernel, s.missing, {kL1Hit, "L1/TEX Hit Rate"});
  s.l2_hit_pct = Metric(kernel, s.missing, {kL2Hit, "L2 Hit Rate"});
  s.load_sector_use_pct = Metric(kernel, s.missing, {kLoadSectorUse});
  s.store_sector_use_pct = Metric(kernel, s.missing, {kStoreSectorUse});
  s.top_stalls = TopStalls(kernel);
  if (s.top_stalls.empty()) s.missing.push_back(std::string(kStallPrefix) + "*");
  // The structural causes lead: they are why the kernel is where the verdict puts it.
  s.causes = StructuralCauses(s);
  const std::vector<std::string> others = OtherCauses(s);
  std::vector<std::string> parts = s.causes;
  parts.push_back(Verdict(s));
  parts.insert(parts.end(), others.begin(), others.end());
  s.causes.insert(s.causes.end(), others.begin(), others.end());
  s.verdict = fmt::format("{}", fmt::join(parts, "; "));
  return s;
}

const std::vector<std::string>& ProfileMetricNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {kDurationMetric,
                                    kRegisters,
                                    kDramPerSecond,
                                    "dram__bytes_read.sum",
                                    "dram__bytes_write.sum",
                                    kAchievedOccupancy,
                                    kTheoreticalOccupancy,
                                    kSharedStatic,
                                    kSharedDynamic,
                                    kLocalLoads,
                                    kLocalStores,
                                    kL1Hit,
                                    kL2Hit,
                                    kLoadSectorUse,
                                    kStoreSectorUse};
    for (const BlockLimit& limit : kBlockLimits) out.push_back(limit.metric);
    return out;
  }();
  return names;
}

}  // namespace kb
