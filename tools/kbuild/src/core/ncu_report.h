// Reads Nsight Compute's `ncu --csv` output: one row per (kernel, metric), with
// ncu's own ==PROF== lines and the profiled program's prints mixed in. Groups the
// rows into kernels with their launch shape, metrics and rule findings.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace kb {

// Bounds on what is read: a profile of a few kernels is kilobytes; more means
// a wrong file or a run that profiled every launch.
inline constexpr size_t kMaxNcuCsvBytes = size_t{64} << 20;
inline constexpr size_t kMaxNcuCsvRows = 100000;

struct NcuMetric {
  std::string unit;             // "ns", "%", "cycle", "" ...
  std::optional<double> value;  // when the text is a number (thousands separators removed)
  std::string text;             // as ncu printed it, e.g. "7,279" or "n/a"
  std::string section;          // "GPU Speed Of Light Throughput", "Command line profiler metrics"
};

// A rule's finding (ncu's guidance), e.g. SOLBottleneck: "grid is too small".
struct NcuRule {
  std::string section;
  std::string name;
  std::string type;  // "OPT", "WRN", "INF"
  std::string description;
};

struct NcuKernel {
  long id = 0;
  std::string process_id;
  std::string name;   // as ncu printed it: mangled with --print-kernel-base mangled
  std::string block;  // "(512, 1, 1)"
  std::string grid;
  // By metric name; one name can be in two sections with different units
  // ("Memory Throughput": % in SpeedOfLight, byte/second in MemoryWorkloadAnalysis).
  std::multimap<std::string, NcuMetric> metrics;
  std::vector<NcuRule> rules;

  // The first row of the metric named `name` (of that unit when `unit` is
  // given), or nullptr.
  const NcuMetric* Find(const std::string& name, std::optional<std::string_view> unit = {}) const;
  // Its numeric value, or nothing when missing or not a number.
  std::optional<double> Value(const std::string& name,
                              std::optional<std::string_view> unit = {}) const;
};

struct NcuReport {
  std::vector<NcuKernel> kernels;  // in ID order
  int skipped_lines = 0;           // lines that were not CSV rows of the header's columns
};

// The text of `ncu --csv` (stdout and stderr together). An error when ncu
// printed no CSV (with the reason when ncu gave one) or the input is too large.
Expected<NcuReport> ParseNcuCsv(std::string_view text);

// "7,279" -> 7279, "2,841.43" -> 2841.43; nothing for "n/a" or "".
std::optional<double> ParseNcuNumber(std::string_view text);

}  // namespace kb
