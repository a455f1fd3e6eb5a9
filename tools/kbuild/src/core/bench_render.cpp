#include "core/bench_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/text_table.h"

namespace kb {

namespace {

std::string Fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }
std::string OrDash(double v, const std::string& text) { return v > 0 ? text : "-"; }

std::string SpeedupCell(const BaselineCell* b) {
  if (b == nullptr) return "-";
  if (!b->problem.empty()) return "problem";  // the "peer problem:" lines say which
  return OrDash(b->speedup, Fixed(b->speedup, 2) + "x");
}

// The cells shared by the terminal table and the markdown table.
TableRow Cells(const BenchRow& r, const BenchTable& t) {
  TableRow row = {r.Key(),
                  Fixed(r.median_us, 2),
                  Fixed(r.p10_us, 2) + "-" + Fixed(r.p90_us, 2),
                  OrDash(r.gbps, Fixed(r.gbps, 0)),
                  OrDash(r.percent_of_peak, Fixed(r.percent_of_peak, 1) + "%" +
                                                (r.ComputeBound() ? " (compute)" : "")),
                  OrDash(r.tflops, Fixed(r.tflops, 2))};
  for (const auto& b : t.baselines) row.push_back(SpeedupCell(r.Baseline(b)));
  if (t.ShowsBest()) {
    row.push_back(OrDash(r.vs_best, Fixed(r.vs_best, 2) + "x (" + r.best_baseline + ")"));
  }
  row.push_back(r.checked_against.empty() ? "-" : r.checked_against);
  row.push_back(harness::LaunchesCell(r.provenance));
  row.push_back(r.Verdict());
  return row;
}

TableRow Header(const BenchTable& t) {
  TableRow header = {"case", "median us", "p10-p90 us", "GB/s", "% of peak", "TFLOP/s"};
  for (const auto& b : t.baselines) header.push_back("vs " + b);
  if (t.ShowsBest()) header.push_back("vs best");
  header.push_back("checked");
  header.push_back("launches");
  header.push_back("verdict");
  return header;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string CsvNumber(double v) { return v > 0 ? fmt::format("{}", v) : ""; }

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c == '\n' ? ' ' : c);
  return out;
}

std::string GeomeanLine(const Geomean& g, const std::string& what) {
  return fmt::format("geomean vs {}: {:.2f}x over {} case{}", what, g.speedup, g.cases,
                     g.cases == 1 ? "" : "s");
}

// "host us/call (...): ours 4.1, ours via python 9.8, torch.compile 31.0"; empty when
// nothing reported a host time.
std::string HostLine(const HostTimes& h) {
  if (h.empty()) return "";
  std::vector<std::string> parts;
  if (h.ours > 0) parts.push_back(fmt::format("ours {:.1f}", h.ours));
  if (h.ours_python > 0) parts.push_back(fmt::format("ours via python {:.1f}", h.ours_python));
  for (const auto& [name, us] : h.baselines) parts.push_back(fmt::format("{} {:.1f}", name, us));
  std::string line = "host us/call (median over cases; users pay this per call in eager mode):";
  for (size_t i = 0; i < parts.size(); ++i) line += (i == 0 ? " " : ", ") + parts[i];
  return line;
}

// "launch floor: ..." with the range of case / floor over the cases that ran;
// empty when the floor was not measured.
std::string LaunchFloorLine(const BenchTable& t) {
  if (t.launch_floor_us <= 0) return "";
  double lo = 0, hi = 0;
  for (const auto& r : t.rows) {
    if (r.failed() || r.median_us <= 0) continue;
    const double ratio = r.median_us / t.launch_floor_us;
    lo = lo == 0 ? ratio : std::min(lo, ratio);
    hi = std::max(hi, ratio);
  }
  std::string line =
      fmt::format("launch floor: an empty kernel takes {:.2f} us per call timed the same way",
                  t.launch_floor_us);
  if (hi > 0) line += fmt::format("; these cases take {:.1f}-{:.1f}x of it", lo, hi);
  return line;
}

// "value checks: 1.2 s of 41.0 s (2.9%)"; empty when the run time is unknown.
std::string ValueCheckLine(const BenchTable& t) {
  if (t.elapsed_ms <= 0) return "";
  return fmt::format("value checks: {:.1f} s of {:.1f} s ({:.1f}%)", t.check_ms / 1e3,
                     t.elapsed_ms / 1e3, 100.0 * t.check_ms / t.elapsed_ms);
}

// The lines under the table, in order, shared by the terminal and the markdown.
std::vector<std::string> SummaryLines(const BenchTable& t) {
  std::vector<std::string> lines;
  for (const auto& g : t.geomeans) lines.push_back(GeomeanLine(g, g.baseline));
  if (t.ShowsBest() && t.geomean_vs_best.cases > 0) {
    lines.push_back(GeomeanLine(t.geomean_vs_best, "best") +
                    " (the fastest baseline of each case)");
  }
  lines.push_back(HostLine(t.host));
  for (const auto& p : t.peer_problems) lines.push_back("peer problem: " + p);
  lines.push_back(LaunchFloorLine(t));
  lines.push_back(ValueCheckLine(t));
  std::erase(lines, std::string());
  return lines;
}

}  // namespace

std::string RenderBenchTable(const BenchTable& t) {
  std::vector<TableRow> rows;
  for (const auto& r : t.rows) rows.push_back(Cells(r, t));
  std::string out = RenderTable(Header(t), rows);
  for (const auto& line : SummaryLines(t)) out += line + "\n";
  if (t.peak_gbps > 0) {
    out += fmt::format("100% = {:.0f} GB/s measured copy bandwidth ({})\n", t.peak_gbps,
                       t.peak_source);
  }
  std::set<std::string> units;  // one line per compute unit the benchmarks declared
  for (const auto& r : t.rows) {
    if (r.compute_peak_tflops <= 0 || !units.insert(r.compute_unit).second) continue;
    out += fmt::format(
        "% of peak (compute) = of the {} theoretical peak, {:.1f} TFLOP/s (SMs x FMA lanes x 2 "
        "x boost clock), where that share is the larger\n",
        r.compute_unit, r.compute_peak_tflops);
  }
  for (bool impossible : {true, false}) {
    for (const auto& r : t.rows) {
      if (r.impossible != impossible || !r.failed()) continue;
      out += "\n" + std::string(impossible ? "IMPOSSIBLE RESULT " : "FAILED ") + r.Key() + ":\n";
      for (const auto& p : r.problems) out += "  " + p + "\n";
    }
  }
  if (!t.peer_error.empty()) out += "\nPEERS NOT TIMED:\n  " + t.peer_error + "\n";
  return out;
}

std::string BenchCsv(const BenchTable& t) {
  std::string out =
      "benchmark,case,correctness_only,median_us,p10_us,p90_us,gbps,"
      "percent_of_peak,tflops,host_us_per_call";
  for (const auto& b : t.baselines) {
    out += "," + CsvField("speedup vs " + b) + "," + CsvField("host_us_per_call " + b);
  }
  out += ",speedup vs best,best baseline,verdict\n";
  for (const auto& r : t.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}", CsvField(r.benchmark),
                       CsvField(r.case_name), r.correctness_only, r.median_us, r.p10_us, r.p90_us,
                       r.gbps, r.percent_of_peak, r.tflops, CsvNumber(r.host_us_per_call));
    for (const auto& name : t.baselines) {
      const BaselineCell* b = r.Baseline(name);
      out += "," + CsvNumber(r.SpeedupVs(name)) + "," +
             (b != nullptr ? CsvNumber(b->host_us_per_call) : "");
    }
    out += "," + CsvNumber(r.vs_best) + "," + CsvField(r.best_baseline) + "," + r.Verdict() + "\n";
  }
  return out;
}

std::string BenchMarkdown(const BenchTable& t, const std::string& header_line) {
  auto line = [](const TableRow& cells) {
    std::string out = "|";
    for (const auto& c : cells) out += " " + MarkdownCell(c) + " |";
    return out + "\n";
  };
  const TableRow header = Header(t);
  std::string out = header_line + "\n\n" + line(header);
  out += line(TableRow(header.size(), "---"));
  for (const auto& r : t.rows) out += line(Cells(r, t));
  std::vector<std::string> lines = SummaryLines(t);
  if (!t.peer_error.empty()) lines.push_back("peers not timed: " + t.peer_error);
  if (!lines.empty()) out += "\n";
  for (const auto& l : lines) out += "- " + MarkdownCell(l) + "\n";
  return out;
}

}  // namespace kb
