#include "core/profile_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

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

std::string Pct(const std::optional<double>& value) {
  return value ? fmt::format("{:.1f}%", *value) : "?";
}

std::string Number(const std::optional<double>& value) {
  return value ? fmt::format("{:.0f}", *value) : "?";
}

nlohmann::json OrNull(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

ProfileSummary SummarizeKernel(const NcuKernel& kernel, const ProfileContext& context) {
  ProfileSummary s;
  s.id = kernel.id;
  s.kernel = kernel.name;
  s.block = kernel.block;
  s.grid = kernel.grid;
  s.duration_us = DurationUs(kernel);
  if (!s.duration_us) s.missing.push_back(kDurationMetric);
  s.dram_pct = Metric(kernel, s.missing, {kDram});
  s.sm_pct = Metric(kernel, s.missing, {kSm});
  s.memory_pct = Metric(kernel, s.missing, {kMemory});
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
  s.verdict = Verdict(s);
  return s;
}

std::string RenderProfileSummary(const ProfileSummary& s) {
  std::string out;
  const auto line = [&out](const char* label, const std::string& text) {
    out += fmt::format("{:<12}{}\n", label, text);
  };
  line("kernel", fmt::format("{} (ID {})", s.kernel, s.id));
  line("launch", fmt::format("grid {} x block {}, {} registers/thread", s.grid, s.block,
                             Number(s.registers_per_thread)));
  line("time", s.duration_us ? fmt::format("{:.3f} us", *s.duration_us) : "?");
  if (s.achieved_gbps) {
    std::string bandwidth = fmt::format("{:.0f} GB/s for the case's bytes", *s.achieved_gbps);
    if (s.achieved_pct_of_peak)
      bandwidth += fmt::format(", {:.0f}% of peak", *s.achieved_pct_of_peak);
    line("bandwidth", bandwidth);
  }
  line("throughput", fmt::format("DRAM {}, memory {}, SM {} of peak", Pct(s.dram_pct),
                                 Pct(s.memory_pct), Pct(s.sm_pct)));
  line("SM active",
       fmt::format("{} of {} cycles{}", Number(s.sm_active_cycles), Number(s.elapsed_cycles),
                   s.sm_idle_share
                       ? fmt::format(", idle {:.0f}% of the time", *s.sm_idle_share * 100)
                       : ""));
  line("issue",
       fmt::format("{} warp cycles per issued instruction, {} instructions executed",
                   s.warp_cycles_per_issue ? fmt::format("{:.1f}", *s.warp_cycles_per_issue) : "?",
                   Number(s.executed_instructions)));
  if (!s.missing.empty()) line("missing", fmt::format("{}", fmt::join(s.missing, ", ")));
  line("verdict", s.verdict);
  return out;
}

nlohmann::json ProfileSummaryJson(const ProfileSummary& s) {
  return {
      {"id", s.id},
      {"kernel", s.kernel},
      {"block", s.block},
      {"grid", s.grid},
      {"duration_us", OrNull(s.duration_us)},
      {"dram_throughput_pct", OrNull(s.dram_pct)},
      {"sm_throughput_pct", OrNull(s.sm_pct)},
      {"memory_throughput_pct", OrNull(s.memory_pct)},
      {"registers_per_thread", OrNull(s.registers_per_thread)},
      {"elapsed_cycles", OrNull(s.elapsed_cycles)},
      {"sm_active_cycles", OrNull(s.sm_active_cycles)},
      {"sm_idle_share", OrNull(s.sm_idle_share)},
      {"warp_cycles_per_issued_instruction", OrNull(s.warp_cycles_per_issue)},
      {"executed_instructions", OrNull(s.executed_instructions)},
      {"achieved_gbps", OrNull(s.achieved_gbps)},
      {"achieved_pct_of_peak", OrNull(s.achieved_pct_of_peak)},
      {"missing", s.missing},
      {"verdict", s.verdict},
  };
}

}  // namespace kb
