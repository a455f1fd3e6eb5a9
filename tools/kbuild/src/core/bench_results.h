// Results of kbuild bench: the harness's benchmark document (docs/harness.md, "Benchmark
// JSON"), with the Python peers merged in (peer_results.h) and the summary added
// (bench_summary.h), as one row per case. bench_render.h turns it into the terminal table,
// CSV and markdown. Physically impossible results are called out, not celebrated.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "kbuild/harness/provenance.h"

namespace kb {

// One baseline of a case: a C++ baseline of the benchmark spec or a Python peer.
struct BaselineCell {
  std::string name;
  double speedup = 0;           // baseline time / ours; 0 = not compared
  double host_us_per_call = 0;  // 0 = not measured
  std::string source;           // "" = the benchmark binary, "python" = a peer of peers.py
  std::string problem;          // "" = correct and timed
};

struct BenchRow {
  std::string benchmark;
  std::string case_name;
  bool correctness_only = false;
  double median_us = 0, p10_us = 0, p90_us = 0;
  double gbps = 0;
  double percent_of_peak = 0;   // of the case's roof (the larger share below); 0 = unknown
  double percent_of_compute_peak = 0;  // 0 = no compute unit declared or peak unknown
  std::string compute_unit;            // "fp32 CUDA cores"; "" = judged by bandwidth alone
  double compute_peak_tflops = 0;
  double tflops = 0;            // 0 = no flop formula
  double host_us_per_call = 0;  // our op's host time per call; 0 = not measured
  std::vector<BaselineCell> baselines;
  std::string best_baseline;          // the fastest baseline that counts; "" = none
  double vs_best = 0;                 // its speedup
  std::vector<std::string> problems;  // each fails the case
  bool impossible = false;            // faster than the measured copy bandwidth allows
  harness::Provenance provenance;     // kernels one eager op call launched (the launches column)
  std::string checked_against;        // "reference", "baseline '<name>'"; "" = not checked
  double check_ms = 0;                // host time of the value checks

  std::string Key() const { return benchmark + "/" + case_name; }
  bool failed() const { return !problems.empty(); }
  // The compute roof is the nearer one: "% of peak" is the share of the unit's peak.
  bool ComputeBound() const {
    return percent_of_compute_peak > 0 && percent_of_compute_peak >= percent_of_peak;
  }
  std::string Verdict() const;  // "ok", "ok (correctness only)", "FAIL", "IMPOSSIBLE"
  const BaselineCell* Baseline(const std::string& name) const;  // null when absent
  // The speedup vs baseline `name` when it was timed without a problem, else 0.
  double SpeedupVs(const std::string& name) const;
};

struct Geomean {
  std::string baseline;
  double speedup = 0;
  int cases = 0;
};

// Host time per call, medians over the scored cases (0 = not measured).
struct HostTimes {
  double ours = 0;         // from the benchmark binary
  double ours_python = 0;  // our op called from Python, in the peer worker
  std::vector<std::pair<std::string, double>> baselines;  // in the table's baseline order
  bool empty() const { return ours <= 0 && ours_python <= 0 && baselines.empty(); }
};

struct BenchTable {
  std::string device;
  double peak_gbps = 0;
  std::string peak_source;
  std::vector<std::string> baselines;  // every baseline name, first-seen order
  std::vector<BenchRow> rows;
  std::vector<Geomean> geomeans;  // in baseline order
  Geomean geomean_vs_best;        // baseline "best"
  HostTimes host;
  std::vector<std::string> peer_problems;  // peers not available, failed, ... (warnings)
  std::string peer_error;                  // the peer worker could not run ("" = fine)
  int failed = 0;
  int impossible = 0;
  // --graph runs: an empty kernel's time per call, timed the same way (0 =
  // not measured). Launch-bound cases are read against it.
  double launch_floor_us = 0;
  // Summed value-check time of the cases and the benchmark binary's run time
  // (0 = not reported): the check's share of the bench time.
  double check_ms = 0;
  double elapsed_ms = 0;

  // The "vs best" column and geomean are shown when there is a choice of baselines.
  bool ShowsBest() const { return baselines.size() >= 2; }
};

// Exit 5 when `doc` is not a kbuild-harness-bench/1 document.
Expected<BenchTable> ParseBenchDocument(const nlohmann::json& doc);

// 1 (kCheckFailed) when a case failed or the peers could not be timed (the comparison the
// project asked for is missing), else 0.
ExitCode BenchExitCode(const BenchTable& table);

}  // namespace kb
