// How fast a `kbuild tune` or `kbuild optimize` invocation judged its
// candidates once the search was under way: the records its search added
// (after the baseline or defaults, and optimize's baseline on each GPU;
// before tune's finalists' full suites) over the search's wall time, and over
// how many GPU workers. The fixed costs before and after are left out, so this
// is the rate that more GPUs should multiply (`docs/scale-out.md`).
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

namespace kb {

struct RunThroughput {
  int judged = 0;      // history records the search added in this invocation
  double seconds = 0;  // the search's wall time
  int workers = 1;     // GPU workers judging at once (local GPUs or queue jobs)
  double PerMinute() const { return seconds > 0 ? judged * 60.0 / seconds : 0; }
};

// {"judged_now", "seconds", "workers", "per_minute"}.
inline nlohmann::json ThroughputJson(const RunThroughput& t) {
  return {{"judged_now", t.judged},
          {"seconds", t.seconds},
          {"workers", t.workers},
          {"per_minute", t.PerMinute()}};
}

// "throughput: 20 judged in 312 s by 2 workers, 3.85 a minute".
inline std::string ThroughputLine(const RunThroughput& t) {
  return fmt::format("throughput: {} judged in {:.0f} s by {} worker{}, {:.2f} a minute", t.judged,
                     t.seconds, t.workers, t.workers == 1 ? "" : "s", t.PerMinute());
}

}  // namespace kb
