// One kernel's ncu profile in a few numbers (time, how busy DRAM and the SMs
// were, how much of the time SMs sat idle, occupancy, caches, coalescing,
// local memory, warp stalls) and a one-line verdict on what limits it, with
// the causes the counters name. Metrics ncu did not report are listed as
// missing, never guessed. Rendering: profile_render.h.
#pragma once

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

// A warp stall reason and its share of the cycles between issued instructions.
struct WarpStall {
  std::string reason;  // "long_scoreboard", from smsp__average_warps_issue_stalled_<reason>_...
  double cycles = 0;   // warp cycles per issued instruction spent in this state
};

struct ProfileSummary {
  long id = 0;
  std::string kernel;    // to show: demangled (kernel_names.h)
  std::string ncu_name;  // as ncu printed it (mangled): what the SASS is matched by
  std::string block;
  std::string grid;
  std::optional<double> duration_us;
  std::optional<double> dram_pct;    // "DRAM Throughput", % of peak
  std::optional<double> sm_pct;      // "Compute (SM) Throughput"
  std::optional<double> memory_pct;  // "Memory Throughput" in % (the busiest of DRAM, L1, L2)
  std::optional<double> registers_per_thread;
  std::optional<double> elapsed_cycles;
  std::optional<double> sm_active_cycles;
  std::optional<double> sm_idle_share;  // 1 - SM Active Cycles / Elapsed Cycles
  std::optional<double> warp_cycles_per_issue;
  std::optional<double> executed_instructions;
  std::optional<double> achieved_gbps;         // context bytes / duration
  std::optional<double> achieved_pct_of_peak;  // of the context's peak
  std::optional<double> dram_gbps;             // DRAM bytes per second ncu measured
  std::optional<double> dram_pct_of_measured;  // dram_gbps / the context's peak
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> theoretical_occupancy_pct;
  std::string occupancy_limiter;  // "registers", "shared memory", ... ("" when unknown)
  std::optional<double> shared_bytes_per_block;  // static + dynamic
  std::optional<double> local_loads;             // executed local-memory instructions
  std::optional<double> local_stores;
  std::optional<double> l1_hit_pct;
  std::optional<double> l2_hit_pct;
  std::optional<double> load_sector_use_pct;   // of each 32-byte sector fetched for global loads
  std::optional<double> store_sector_use_pct;  // ... written by global stores
  std::vector<WarpStall> top_stalls;           // largest first, at most kTopStalls
  std::vector<std::string> missing;            // ncu metric names not in the report
  std::vector<std::string> causes;             // named problems, also in the verdict
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

// Below this share of each fetched sector used, global accesses are uncoalesced
// (a warp reading 32 consecutive 4-byte values uses 100%).
inline constexpr double kUncoalescedSectorUsePct = 60;
// Below this theoretical occupancy the per-thread resources leave few warps to hide latency.
inline constexpr double kLowOccupancyPct = 50;
inline constexpr size_t kTopStalls = 3;

// The ncu metrics kbuild profile asks for beyond its sections (ncu --metrics);
// the stall reasons come by the regex kStallMetricsRegex.
const std::vector<std::string>& ProfileMetricNames();
inline constexpr const char kStallMetricsRegex[] =
    "regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio$";

ProfileSummary SummarizeKernel(const NcuKernel& kernel, const ProfileContext& context);

}  // namespace kb
