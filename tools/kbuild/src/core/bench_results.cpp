#include "core/bench_results.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text_table.h"

namespace kb {

namespace {

constexpr const char* kImpossiblePrefix = "physically impossible";

std::string Fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }
std::string OrDash(double v, const std::string& text) { return v > 0 ? text : "-"; }

double SpeedupFor(const BenchRow& row, const std::string& baseline) {
  for (const auto& [name, speedup] : row.speedups) {
    if (name == baseline) return speedup;
  }
  return 0;
}

// The cells shared by the terminal table and the markdown table.
TableRow Cells(const BenchRow& r, const std::vector<std::string>& baselines) {
  TableRow row = {r.Key(),
                  Fixed(r.median_us, 2),
                  Fixed(r.p10_us, 2) + "-" + Fixed(r.p90_us, 2),
                  OrDash(r.gbps, Fixed(r.gbps, 0)),
                  OrDash(r.percent_of_peak, Fixed(r.percent_of_peak, 1) + "%"),
                  OrDash(r.tflops, Fixed(r.tflops, 2))};
  for (const auto& b : baselines) {
    const double s = SpeedupFor(r, b);
    row.push_back(OrDash(s, Fixed(s, 2) + "x"));
  }
  row.push_back(r.checked_against.empty() ? "-" : r.checked_against);
  row.push_back(harness::LaunchesCell(r.provenance));
  row.push_back(r.Verdict());
  return row;
}

TableRow Header(const std::vector<std::string>& baselines) {
  TableRow header = {"case", "median us", "p10-p90 us", "GB/s", "% of peak", "TFLOP/s"};
  for (const auto& b : baselines) header.push_back("vs " + b);
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

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c == '\n' ? ' ' : c);
  return out;
}

std::string GeomeanLine(const Geomean& g) {
  return fmt::format("geomean vs {}: {:.2f}x over {} case{}", g.baseline, g.speedup, g.cases,
                     g.cases == 1 ? "" : "s");
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
  std::string line = fmt::format(
      "launch floor: an empty kernel takes {:.2f} us per call timed the same way", t.launch_floor_us);
  if (hi > 0) line += fmt::format("; these cases take {:.1f}-{:.1f}x of it", lo, hi);
  return line;
}

// "value checks: 1.2 s of 41.0 s (2.9%)"; empty when the run time is unknown.
std::string ValueCheckLine(const BenchTable& t) {
  if (t.elapsed_ms <= 0) return "";
  return fmt::format("value checks: {:.1f} s of {:.1f} s ({:.1f}%)", t.check_ms / 1e3,
                     t.elapsed_ms / 1e3, 100.0 * t.check_ms / t.elapsed_ms);
}

}  // namespace

std::string BenchRow::Verdict() const {
  if (impossible) return "IMPOSSIBLE";
  if (failed()) return "FAIL";
  return correctness_only ? "ok (correctness only)" : "ok";
}

Expected<BenchTable> ParseBenchDocument(const nlohmann::json& doc) {
  if (!doc.is_object() || doc.value("schema", "") != "kbuild-harness-bench/1" ||
      !doc.contains("cases") || !doc["cases"].is_array()) {
    return MakeError(ExitCode::kInternal,
                     "the benchmark results are not a kbuild-harness-bench/1 document",
                     "kbuild and the harness it compiled disagree: the project's harness comes "
                     "from KBUILD_HOME or kbuild's own share/kbuild; rebuild the project with "
                     "this kbuild (kbuild build)");
  }
  BenchTable t;
  t.device = doc.value("device", "");
  if (doc.contains("peak") && doc["peak"].is_object()) {
    t.peak_gbps = doc["peak"].value("copy_bandwidth_gbps", 0.0);
    t.peak_source = doc["peak"].value("source", "");
  }
  for (const auto& c : doc["cases"]) {
    if (!c.is_object()) continue;
    BenchRow r;
    r.benchmark = c.value("benchmark", "");
    r.case_name = c.value("case", "");
    r.correctness_only = c.value("correctness_only", false);
    const auto time = c.value("time_us", nlohmann::json::object());
    r.median_us = time.value("median", 0.0);
    r.p10_us = time.value("p10", 0.0);
    r.p90_us = time.value("p90", 0.0);
    r.gbps = c.value("gbps", 0.0);
    r.percent_of_peak = c.value("percent_of_peak", 0.0);
    r.tflops = c.value("tflops", 0.0);
    for (const auto& b : c.value("baselines", nlohmann::json::array())) {
      if (!b.is_object()) continue;
      const std::string name = b.value("name", "");
      r.speedups.emplace_back(name, b.value("speedup", 0.0));
      if (std::find(t.baselines.begin(), t.baselines.end(), name) == t.baselines.end()) {
        t.baselines.push_back(name);
      }
    }
    for (const auto& p : c.value("problems", nlohmann::json::array())) {
      const std::string text = p.is_string() ? p.get<std::string>() : p.dump();
      r.impossible = r.impossible || text.starts_with(kImpossiblePrefix);
      r.problems.push_back(text);
    }
    if (c.value("verdict", "ok") != "ok" && r.problems.empty()) {
      r.problems.push_back("the harness marked this case " + c.value("verdict", std::string()));
    }
    r.provenance = harness::ProvenanceFromJson(c);
    r.checked_against = c.value("checked_against", "");
    r.check_ms = c.value("check_ms", 0.0);
    t.check_ms += r.check_ms;
    if (t.launch_floor_us == 0) t.launch_floor_us = c.value("launch_floor_us", 0.0);
    t.failed += r.failed();
    t.impossible += r.impossible;
    t.rows.push_back(std::move(r));
  }
  t.elapsed_ms = doc.value("elapsed_ms", 0.0);
  const nlohmann::json geomeans = doc.value("geomean_speedup", nlohmann::json::object());
  for (const auto& [name, g] : geomeans.items()) {
    if (!g.is_object()) continue;
    t.geomeans.push_back({name, g.value("speedup", 0.0), g.value("cases", 0)});
  }
  return t;
}

std::string RenderBenchTable(const BenchTable& t) {
  std::vector<TableRow> rows;
  for (const auto& r : t.rows) rows.push_back(Cells(r, t.baselines));
  std::string out = RenderTable(Header(t.baselines), rows);
  for (const auto& g : t.geomeans) out += GeomeanLine(g) + "\n";
  if (const std::string floor = LaunchFloorLine(t); !floor.empty()) out += floor + "\n";
  if (const std::string checks = ValueCheckLine(t); !checks.empty()) out += checks + "\n";
  if (t.peak_gbps > 0) {
    out += fmt::format("100% = {:.0f} GB/s measured copy bandwidth ({})\n", t.peak_gbps,
                       t.peak_source);
  }
  for (bool impossible : {true, false}) {
    for (const auto& r : t.rows) {
      if (r.impossible != impossible || !r.failed()) continue;
      out += "\n" + std::string(impossible ? "IMPOSSIBLE RESULT " : "FAILED ") + r.Key() + ":\n";
      for (const auto& p : r.problems) out += "  " + p + "\n";
    }
  }
  return out;
}

std::string BenchCsv(const BenchTable& t) {
  std::string out =
      "benchmark,case,correctness_only,median_us,p10_us,p90_us,gbps,"
      "percent_of_peak,tflops";
  for (const auto& b : t.baselines) out += "," + CsvField("speedup vs " + b);
  out += ",verdict\n";
  for (const auto& r : t.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}", CsvField(r.benchmark), CsvField(r.case_name),
                       r.correctness_only, r.median_us, r.p10_us, r.p90_us, r.gbps,
                       r.percent_of_peak, r.tflops);
    for (const auto& b : t.baselines) {
      const double s = SpeedupFor(r, b);
      out += s > 0 ? "," + fmt::format("{}", s) : ",";
    }
    out += "," + r.Verdict() + "\n";
  }
  return out;
}

std::string BenchMarkdown(const BenchTable& t, const std::string& header_line) {
  auto line = [](const TableRow& cells) {
    std::string out = "|";
    for (const auto& c : cells) out += " " + MarkdownCell(c) + " |";
    return out + "\n";
  };
  const TableRow header = Header(t.baselines);
  std::string out = header_line + "\n\n" + line(header);
  out += line(TableRow(header.size(), "---"));
  for (const auto& r : t.rows) out += line(Cells(r, t.baselines));
  if (!t.geomeans.empty()) out += "\n";
  for (const auto& g : t.geomeans) out += "- " + GeomeanLine(g) + "\n";
  if (const std::string floor = LaunchFloorLine(t); !floor.empty()) out += "- " + floor + "\n";
  return out;
}

ExitCode BenchExitCode(const BenchTable& t) {
  return t.failed > 0 ? ExitCode::kCheckFailed : ExitCode::kOk;
}

}  // namespace kb
