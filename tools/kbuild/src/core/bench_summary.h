// Figures over a benchmark document's cases that kbuild bench adds once the Python peers are
// merged in as baselines, so the table, CSV, markdown, chart and JSON all show the same numbers.
// A case is scored when it passed and is not correctness-only (IsTimedCase); a baseline entry
// counts in a case when its speedup is above 0 and it has no "problem".
#pragma once

#include <nlohmann/json.hpp>

namespace kb {

// Adds to the document:
//  - per scored case "vs_best": {"name", "speedup"}: the fastest counting baseline of the case
//    (the smallest speedup, baseline time / ours); absent when none counts.
//  - "geomean_speedup": {name: {"speedup", "cases"}} for every baseline, the harness's and the
//    peers', over the scored cases where it counts (recomputed: a peer can fail a case).
//  - "geomean_vs_best": {"speedup", "cases"} over the scored cases with a "vs_best".
//  - "host_us_per_call": {"ours", "ours_python", "baselines": {name: us}}: medians over the scored
//    cases that report a host time per call (0 = none did) - what each costs the CPU per call
//    in eager mode.
void AddBenchSummary(nlohmann::json* doc);

}  // namespace kb
