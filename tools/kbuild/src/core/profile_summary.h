// One kernel's ncu profile in a few numbers (time, how busy DRAM and the SMs
// were, how much of the time SMs sat idle) and a one-line verdict on what
// limits it. Metrics ncu did not report are listed as missing, never guessed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/ncu_report.h"

namespace kb {

// What ncu does not know about the case.
struct ProfileContext {
  std::optional<double> peak_dram_gbps;  // the GPU's measured copy bandwidth (kbuild doctor)
  std::optional<double> bytes;           // bytes the case must move
};

struct ProfileSummary {
  long id = 0;
  std::string kernel;
  std::string block;
  std::string grid;
  std::optional<double> duration_us;
  std::optional<double> dram_pct;    // "DRAM Throughput", % of peak
  std::optional<double> sm_pct;      // "Compute (SM) Throughput"
  std::optional<double> memory_pct;  // "Memory Throughput" (the busiest of DRAM, L1, L2)
  std::optional<double> registers_per_thread;
  std::optional<double> elapsed_cycles;
  std::optional<double> sm_active_cycles;
  std::optional<double> sm_idle_share;  // 1 - SM Active Cycles / Elapsed Cycles
  std::optional<double> warp_cycles_per_issue;
  std::optional<double> executed_instructions;
  std::optional<double> achieved_gbps;         // context bytes / duration
  std::optional<double> achieved_pct_of_peak;  // of the context's peak
  std::vector<std::string> missing;            // ncu metric names not in the report
  std::string verdict;
};

// Verdict thresholds, in % of peak: ncu's own guidance calls a unit above 80%
// saturated, and below 40% neither unit limits the kernel.
inline constexpr double kNearPeakPct = 80;
inline constexpr double kComputeBoundPct = 60;
inline constexpr double kLowThroughputPct = 40;
// Above this share of idle SM time the launch does not fill the GPU for the
// whole kernel (too few blocks, or a tail of the last wave).
inline constexpr double kIdleShare = 0.30;
// A Hopper scheduler holds at most 16 warps (64 per SM, 4 schedulers): when
// each warp waits longer than that between instructions, even full occupancy
// leaves the scheduler without a warp to issue.
inline constexpr double kHighWarpCyclesPerIssue = 16;

ProfileSummary SummarizeKernel(const NcuKernel& kernel, const ProfileContext& context);

// A few aligned lines ending in the verdict.
std::string RenderProfileSummary(const ProfileSummary& summary);

nlohmann::json ProfileSummaryJson(const ProfileSummary& summary);

}  // namespace kb
