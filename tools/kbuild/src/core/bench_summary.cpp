#include "core/bench_summary.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/json_fields.h"
#include "core/peer_job.h"
#include "kbuild/harness/stats.h"

namespace kb {

namespace {

// name -> values, in the order names were first seen.
class Series {
 public:
  void Add(const std::string& name, double value) {
    if (!values_.contains(name)) order_.push_back(name);
    values_[name].push_back(value);
  }
  const std::vector<std::string>& names() const { return order_; }
  const std::vector<double>& at(const std::string& name) const { return values_.at(name); }

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::vector<double>> values_;
};

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return harness::Percentile(values, 0.5);
}

bool Counts(const nlohmann::json& baseline) {
  return NumberOr(baseline, "speedup") > 0 && StringOr(baseline, "problem").empty() &&
         !StringOr(baseline, "name").empty();
}

nlohmann::json Geomean(const std::vector<double>& speedups) {
  return {{"speedup", harness::GeometricMean(speedups)}, {"cases", speedups.size()}};
}

}  // namespace

void AddBenchSummary(nlohmann::json* doc_ptr) {
  nlohmann::json& doc = *doc_ptr;
  if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array()) return;
  Series speedups, host;
  std::vector<double> best_speedups, ours_host, ours_python_host;
  for (auto& c : doc["cases"]) {
    if (!IsTimedCase(c)) continue;
    c.erase("vs_best");
    std::string best;
    double best_speedup = 0;
    for (const auto& b : ArrayAt(c, "baselines")) {
      const std::string name = StringOr(b, "name");
      if (NumberOr(b, "host_us_per_call") > 0) host.Add(name, NumberOr(b, "host_us_per_call"));
      if (!Counts(b)) continue;
      const double speedup = NumberOr(b, "speedup");
      speedups.Add(name, speedup);
      if (best.empty() || speedup < best_speedup) {
        best = name;
        best_speedup = speedup;
      }
    }
    if (!best.empty()) {
      c["vs_best"] = {{"name", best}, {"speedup", best_speedup}};
      best_speedups.push_back(best_speedup);
    }
    if (NumberOr(c, "host_us_per_call") > 0) ours_host.push_back(NumberOr(c, "host_us_per_call"));
    const double python_host = NumberOr(ObjectAt(c, "ours_python"), "host_us_per_call");
    if (python_host > 0) ours_python_host.push_back(python_host);
  }
  nlohmann::json geomeans = nlohmann::json::object();
  for (const auto& name : speedups.names()) geomeans[name] = Geomean(speedups.at(name));
  doc["geomean_speedup"] = geomeans;
  doc["geomean_vs_best"] = Geomean(best_speedups);
  nlohmann::json host_baselines = nlohmann::json::object();
  for (const auto& name : host.names()) {
    if (!name.empty()) host_baselines[name] = Median(host.at(name));
  }
  doc["host_us_per_call"] = {{"ours", Median(ours_host)},
                             {"ours_python", Median(ours_python_host)},
                             {"baselines", host_baselines}};
}

}  // namespace kb
