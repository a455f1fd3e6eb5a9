#include "core/profile_render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>
#include <vector>

namespace kb {

namespace {

std::string Pct(const std::optional<double>& value) {
  return value ? fmt::format("{:.1f}%", *value) : "?";
}

std::string Number(const std::optional<double>& value) {
  return value ? fmt::format("{:.0f}", *value) : "?";
}

nlohmann::json OrNull(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string DramLine(const ProfileSummary& s) {
  std::string text = s.dram_gbps ? fmt::format("{:.0f} GB/s", *s.dram_gbps) : "? GB/s";
  text += fmt::format(", {} of peak", Pct(s.dram_pct));
  if (s.dram_pct_of_measured) {
    text += fmt::format(", {:.0f}% of the measured copy bandwidth", *s.dram_pct_of_measured);
  }
  return text;
}

std::string OccupancyLine(const ProfileSummary& s) {
  std::string text = fmt::format("achieved {} of theoretical {}", Pct(s.achieved_occupancy_pct),
                                 Pct(s.theoretical_occupancy_pct));
  if (!s.occupancy_limiter.empty()) text += ", limited by " + s.occupancy_limiter;
  return text;
}

std::string StallsLine(const ProfileSummary& s) {
  if (s.top_stalls.empty()) return "?";
  std::vector<std::string> parts;
  for (const WarpStall& stall : s.top_stalls) {
    const std::string meaning = StallMeaning(stall.reason);
    parts.push_back(fmt::format("{} {:.1f}{}", stall.reason, stall.cycles,
                                meaning.empty() ? "" : " (" + meaning + ")"));
  }
  return fmt::format("{} cycles per issued instruction", fmt::join(parts, ", "));
}

}  // namespace

std::string StallMeaning(const std::string& reason) {
  const std::pair<const char*, const char*> meanings[] = {
      {"long_scoreboard", "waiting for global/local memory"},
      {"short_scoreboard", "waiting for shared memory or special math"},
      {"lg_throttle", "global/local memory queue full"},
      {"mio_throttle", "shared-memory/special-math queue full"},
      {"tex_throttle", "texture/L1 queue full"},
      {"barrier", "waiting at __syncthreads"},
      {"membar", "waiting at a memory fence"},
      {"math_pipe_throttle", "math pipe busy"},
      {"wait", "fixed-latency dependency"},
      {"not_selected", "ready, another warp issued"},
      {"no_instruction", "instruction cache miss"},
      {"branch_resolving", "branch target"},
      {"dispatch_stall", "dispatcher stall"},
      {"drain", "memory writes draining at exit"},
      {"imc_miss", "constant cache miss"},
      {"sleeping", "nanosleep or yield"},
      {"misc", "other"},
  };
  for (const auto& [name, meaning] : meanings) {
    if (reason == name) return meaning;
  }
  return "";
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
  line("DRAM", DramLine(s));
  line("occupancy", OccupancyLine(s));
  line("memory use", fmt::format("shared {} B/block; local memory {} loads, {} stores executed",
                                 Number(s.shared_bytes_per_block), Number(s.local_loads),
                                 Number(s.local_stores)));
  line("caches", fmt::format("L1 hit {}, L2 hit {}", Pct(s.l1_hit_pct), Pct(s.l2_hit_pct)));
  line("coalescing", fmt::format("global loads use {} of each sector, stores {}",
                                 Pct(s.load_sector_use_pct), Pct(s.store_sector_use_pct)));
  line("SM active",
       fmt::format("{} of {} cycles{}", Number(s.sm_active_cycles), Number(s.elapsed_cycles),
                   s.sm_idle_share
                       ? fmt::format(", idle {:.0f}% of the time", *s.sm_idle_share * 100)
                       : ""));
  line("issue",
       fmt::format("{} warp cycles per issued instruction, {} instructions executed",
                   s.warp_cycles_per_issue ? fmt::format("{:.1f}", *s.warp_cycles_per_issue) : "?",
                   Number(s.executed_instructions)));
  line("stalls", StallsLine(s));
  if (!s.missing.empty()) line("missing", fmt::format("{}", fmt::join(s.missing, ", ")));
  line("verdict", s.verdict);
  return out;
}

nlohmann::json ProfileSummaryJson(const ProfileSummary& s) {
  nlohmann::json stalls = nlohmann::json::array();
  for (const WarpStall& stall : s.top_stalls) {
    stalls.push_back({{"reason", stall.reason}, {"cycles_per_issued_instruction", stall.cycles}});
  }
  return {
      {"id", s.id},
      {"kernel", s.kernel},
      {"ncu_name", s.ncu_name},
      {"block", s.block},
      {"grid", s.grid},
      {"duration_us", OrNull(s.duration_us)},
      {"dram_throughput_pct", OrNull(s.dram_pct)},
      {"dram_gbps", OrNull(s.dram_gbps)},
      {"dram_pct_of_measured_peak", OrNull(s.dram_pct_of_measured)},
      {"sm_throughput_pct", OrNull(s.sm_pct)},
      {"memory_throughput_pct", OrNull(s.memory_pct)},
      {"registers_per_thread", OrNull(s.registers_per_thread)},
      {"shared_bytes_per_block", OrNull(s.shared_bytes_per_block)},
      {"achieved_occupancy_pct", OrNull(s.achieved_occupancy_pct)},
      {"theoretical_occupancy_pct", OrNull(s.theoretical_occupancy_pct)},
      {"occupancy_limiter", s.occupancy_limiter},
      {"local_loads", OrNull(s.local_loads)},
      {"local_stores", OrNull(s.local_stores)},
      {"l1_hit_pct", OrNull(s.l1_hit_pct)},
      {"l2_hit_pct", OrNull(s.l2_hit_pct)},
      {"load_sector_use_pct", OrNull(s.load_sector_use_pct)},
      {"store_sector_use_pct", OrNull(s.store_sector_use_pct)},
      {"top_stalls", stalls},
      {"elapsed_cycles", OrNull(s.elapsed_cycles)},
      {"sm_active_cycles", OrNull(s.sm_active_cycles)},
      {"sm_idle_share", OrNull(s.sm_idle_share)},
      {"warp_cycles_per_issued_instruction", OrNull(s.warp_cycles_per_issue)},
      {"executed_instructions", OrNull(s.executed_instructions)},
      {"achieved_gbps", OrNull(s.achieved_gbps)},
      {"achieved_pct_of_peak", OrNull(s.achieved_pct_of_peak)},
      {"missing", s.missing},
      {"causes", s.causes},
      {"verdict", s.verdict},
  };
}

}  // namespace kb
