// Results of kbuild bench: the harness's benchmark document (docs/harness.md,
// "Benchmark JSON") as one row per case, rendered as the terminal table, CSV
// and a markdown table. Physically impossible results are called out, not
// celebrated.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "kbuild/harness/provenance.h"

namespace kb {

struct BenchRow {
  std::string benchmark;
  std::string case_name;
  bool correctness_only = false;
  double median_us = 0, p10_us = 0, p90_us = 0;
  double gbps = 0;
  double percent_of_peak = 0;                            // 0 = peak unknown
  double tflops = 0;                                     // 0 = no flop formula
  std::vector<std::pair<std::string, double>> speedups;  // baseline name -> speedup
  std::vector<std::string> problems;                     // each fails the case
  bool impossible = false;  // faster than the measured copy bandwidth allows
  harness::Provenance provenance;  // kernels one eager op call launched (the launches column)
  std::string checked_against;     // "reference", "baseline '<name>'"; "" = not checked
  double check_ms = 0;             // host time of the value checks

  std::string Key() const { return benchmark + "/" + case_name; }
  bool failed() const { return !problems.empty(); }
  std::string Verdict() const;  // "ok", "ok (correctness only)", "FAIL", "IMPOSSIBLE"
};

struct Geomean {
  std::string baseline;
  double speedup = 0;
  int cases = 0;
};

struct BenchTable {
  std::string device;
  double peak_gbps = 0;
  std::string peak_source;
  std::vector<std::string> baselines;  // every baseline name, first-seen order
  std::vector<BenchRow> rows;
  std::vector<Geomean> geomeans;
  int failed = 0;
  int impossible = 0;
  // --graph runs: an empty kernel's time per call, timed the same way (0 =
  // not measured). Launch-bound cases are read against it.
  double launch_floor_us = 0;
  // Summed value-check time of the cases and the benchmark binary's run time
  // (0 = not reported): the check's share of the bench time.
  double check_ms = 0;
  double elapsed_ms = 0;
};

// Exit 5 when `doc` is not a kbuild-harness-bench/1 document.
Expected<BenchTable> ParseBenchDocument(const nlohmann::json& doc);

// Columns: case, median us, p10-p90, GB/s, % of peak, TFLOP/s, one "vs
// <baseline>" per baseline, launches, checked (what the values were compared
// with), verdict; then the geometric means, the launch floor when measured,
// the value checks' share of the run, then every problem (impossible ones
// first, in capitals).
std::string RenderBenchTable(const BenchTable& table);

// One header row, one row per case; numbers unrounded.
std::string BenchCsv(const BenchTable& table);

// `header_line` (date, GPU, torch, CUDA) first, then a GitHub markdown table
// and the geometric means.
std::string BenchMarkdown(const BenchTable& table, const std::string& header_line);

// 0 when no case failed, 1 (kCheckFailed) otherwise.
ExitCode BenchExitCode(const BenchTable& table);

}  // namespace kb
