// A BenchTable (bench_results.h) as kbuild bench shows and writes it: the terminal table, CSV
// and a markdown table, with the same columns and summary lines.
#pragma once

#include <string>

#include "core/bench_results.h"

namespace kb {

// Columns: case, median us, p10-p90, GB/s, % of peak, TFLOP/s, one "vs <baseline>" per
// baseline (the harness's and the Python peers'; "problem" where that baseline failed in the
// case), "vs best" with two or more baselines (the fastest baseline of the case that counts),
// checked (what the values were compared with), launches, verdict. Then the geometric means
// (and vs best), the host time per call, one "peer problem:" line per peer problem, the launch
// floor when measured, the value checks' share of the run, the 100% line, then every failure
// (impossible ones first, in capitals) and why the peers were not timed.
std::string RenderBenchTable(const BenchTable& table);

// One header row, one row per case; numbers unrounded; per baseline its speedup and host time
// per call, then the speedup vs the best baseline and its name.
std::string BenchCsv(const BenchTable& table);

// `header_line` (date, GPU, torch, CUDA) first, then a GitHub markdown table and the summary
// lines as a list.
std::string BenchMarkdown(const BenchTable& table, const std::string& header_line);

}  // namespace kb
