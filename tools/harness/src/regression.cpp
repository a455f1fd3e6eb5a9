#include "kbuild/harness/regression.h"

#include <algorithm>
#include <map>

#include "kbuild/harness/results.h"

namespace kb::harness {

namespace {

bool IsBenchDocument(const nlohmann::json& doc) {
  return doc.is_object() && doc.value("schema", "") == kBenchSchema && doc.contains("cases") &&
         doc["cases"].is_array();
}

std::map<std::string, nlohmann::json> CasesByKey(const nlohmann::json& doc) {
  std::map<std::string, nlohmann::json> cases;
  for (const nlohmann::json& c : doc["cases"]) {
    cases[c.value("benchmark", "") + "/" + c.value("case", "")] = c;
  }
  return cases;
}

double Median(const nlohmann::json& c) { return c["time_us"].value("median", 0.0); }

double Spread(const nlohmann::json& c) {
  const nlohmann::json& t = c["time_us"];
  double median = t.value("median", 0.0);
  return median > 0 ? (t.value("p90", 0.0) - t.value("p10", 0.0)) / median : 0;
}

}  // namespace

RegressionReport CompareBenchDocuments(const nlohmann::json& before, const nlohmann::json& after,
                                       double min_change) {
  RegressionReport report;
  for (const auto* doc : {&before, &after}) {
    if (!IsBenchDocument(*doc)) {
      report.error = std::string(doc == &before ? "the first" : "the second") +
                     " file is not a benchmark result (schema '" + kBenchSchema +
                     "')\nhint: pass files written through KBUILD_BENCH_JSON";
      return report;
    }
  }
  auto old_cases = CasesByKey(before);
  auto new_cases = CasesByKey(after);
  for (const auto& [key, now] : new_cases) {
    RegressionRow row{key, 0, Median(now), 0, min_change, "new"};
    auto old = old_cases.find(key);
    if (now.value("verdict", "ok") != "ok") {
      row.status = "failed";
    } else if (old != old_cases.end() && Median(old->second) > 0) {
      row.before_us = Median(old->second);
      row.change = row.after_us / row.before_us - 1;
      row.threshold = std::max(min_change, (Spread(old->second) + Spread(now)) / 2);
      row.status = row.change > row.threshold    ? "regression"
                   : row.change < -row.threshold ? "improvement"
                                                 : "noise";
    }
    if (row.status == "regression" || row.status == "failed") ++report.regressions;
    report.rows.push_back(row);
  }
  for (const auto& [key, old] : old_cases) {
    if (!new_cases.count(key)) report.rows.push_back({key, Median(old), 0, 0, 0, "missing"});
  }
  return report;
}

}  // namespace kb::harness
