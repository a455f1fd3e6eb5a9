#include "core/bench_compare.h"

#include <fmt/format.h>

#include "core/json_fields.h"
#include "core/text_table.h"

namespace kb {

Expected<BenchBaseline> LoadBenchBaseline(const FileSystem& fs,
                                          const std::filesystem::path& before_file) {
  auto text = fs.ReadAtMost(before_file, kMaxResultsBytes);
  if (!text) {
    // The reason (missing, a FIFO, over the size limit) stays in the message.
    Error e = MakeError(
        ExitCode::kUsage,
        "cannot read --compare file " + before_file.string() + ": " + text.error().message,
        "pass a results file of an earlier run, e.g. results/latest.json");
    return e;
  }
  auto before = ParseUntrustedJson(*text);
  if (before.is_discarded()) {
    Error e = MakeError(ExitCode::kUsage, "--compare file is not valid JSON",
                        "pass a results file of an earlier run, e.g. results/latest.json");
    e.path = before_file.string();
    return e;
  }
  return BenchBaseline{before_file, std::move(before)};
}

Expected<harness::RegressionReport> CompareWithBaseline(const BenchBaseline& baseline,
                                                        const nlohmann::json& after) {
  harness::RegressionReport report = harness::CompareBenchDocuments(baseline.document, after);
  if (!report.error.empty()) {
    const size_t hint_at = report.error.find("\nhint: ");
    Error e = MakeError(ExitCode::kUsage, report.error.substr(0, hint_at),
                        hint_at == std::string::npos ? "" : report.error.substr(hint_at + 7));
    e.path = baseline.file.string();
    return e;
  }
  return report;
}

Expected<harness::RegressionReport> CompareWithFile(const FileSystem& fs,
                                                    const std::filesystem::path& before_file,
                                                    const nlohmann::json& after) {
  auto baseline = LoadBenchBaseline(fs, before_file);
  if (!baseline) return baseline.error();
  return CompareWithBaseline(*baseline, after);
}

std::string RenderCompareTable(const harness::RegressionReport& report) {
  std::vector<TableRow> rows;
  auto us = [](double v) { return v > 0 ? fmt::format("{:.2f}", v) : std::string("-"); };
  for (const auto& r : report.rows) {
    const bool measured = r.before_us > 0 && r.after_us > 0;
    rows.push_back({r.key, us(r.before_us), us(r.after_us),
                    measured ? fmt::format("{:+.1f}%", 100 * r.change) : "-",
                    measured ? fmt::format("±{:.1f}%", 100 * r.threshold) : "-",
                    r.status == "regression" || r.status == "failed"
                        ? "REGRESSION" + std::string(r.status == "failed" ? " (failed)" : "")
                        : r.status});
  }
  std::string out =
      RenderTable({"case", "before us", "after us", "change", "noise", "status"}, rows);
  out += fmt::format("{} regression{} beyond noise\n", report.regressions,
                     report.regressions == 1 ? "" : "s");
  return out;
}

nlohmann::json CompareToJson(const harness::RegressionReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : report.rows) {
    rows.push_back({{"case", r.key},
                    {"before_us", r.before_us},
                    {"after_us", r.after_us},
                    {"change", r.change},
                    {"threshold", r.threshold},
                    {"status", r.status}});
  }
  return {{"rows", rows}, {"regressions", report.regressions}};
}

}  // namespace kb
