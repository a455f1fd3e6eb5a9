#include "core/bench_results.h"

#include <algorithm>

#include "core/json_fields.h"

namespace kb {

namespace {

constexpr const char* kImpossiblePrefix = "physically impossible";

BaselineCell ParseBaseline(const nlohmann::json& b) {
  return {StringOr(b, "name"), NumberOr(b, "speedup"), NumberOr(b, "host_us_per_call"),
          StringOr(b, "source"), StringOr(b, "problem")};
}

BenchRow ParseRow(const nlohmann::json& c) {
  BenchRow r;
  r.benchmark = StringOr(c, "benchmark");
  r.case_name = StringOr(c, "case");
  r.correctness_only = c.value("correctness_only", nlohmann::json(false)) == true;
  const nlohmann::json time = ObjectAt(c, "time_us");
  r.median_us = NumberOr(time, "median");
  r.p10_us = NumberOr(time, "p10");
  r.p90_us = NumberOr(time, "p90");
  r.gbps = NumberOr(c, "gbps");
  r.percent_of_peak = NumberOr(c, "percent_of_peak");
  r.percent_of_compute_peak = NumberOr(c, "percent_of_compute_peak");
  r.compute_unit = StringOr(c, "compute_unit");
  r.compute_peak_tflops = NumberOr(c, "compute_peak_tflops");
  r.tflops = NumberOr(c, "tflops");
  r.host_us_per_call = NumberOr(c, "host_us_per_call");
  for (const auto& b : ArrayAt(c, "baselines")) {
    if (b.is_object()) r.baselines.push_back(ParseBaseline(b));
  }
  const nlohmann::json best = ObjectAt(c, "vs_best");
  r.best_baseline = StringOr(best, "name");
  r.vs_best = NumberOr(best, "speedup");
  for (const auto& p : ArrayAt(c, "problems")) {
    const std::string text = p.is_string() ? p.get<std::string>() : p.dump();
    r.impossible = r.impossible || text.starts_with(kImpossiblePrefix);
    r.problems.push_back(text);
  }
  const std::string verdict = StringOr(c, "verdict", "ok");
  if (verdict != "ok" && r.problems.empty()) {
    r.problems.push_back("the harness marked this case " + verdict);
  }
  r.provenance = harness::ProvenanceFromJson(c);
  r.checked_against = StringOr(c, "checked_against");
  r.check_ms = NumberOr(c, "check_ms");
  return r;
}

Geomean ParseGeomean(const std::string& name, const nlohmann::json& g) {
  return {name, NumberOr(g, "speedup"), IntegerOr(g, "cases")};
}

HostTimes ParseHostTimes(const nlohmann::json& doc, const std::vector<std::string>& baselines) {
  const nlohmann::json host = ObjectAt(doc, "host_us_per_call");
  const nlohmann::json per_baseline = ObjectAt(host, "baselines");
  HostTimes times{NumberOr(host, "ours"), NumberOr(host, "ours_python"), {}};
  for (const auto& name : baselines) {
    if (const double us = NumberOr(per_baseline, name.c_str()); us > 0) {
      times.baselines.emplace_back(name, us);
    }
  }
  return times;
}

}  // namespace

std::string BenchRow::Verdict() const {
  if (impossible) return "IMPOSSIBLE";
  if (failed()) return "FAIL";
  return correctness_only ? "ok (correctness only)" : "ok";
}

const BaselineCell* BenchRow::Baseline(const std::string& name) const {
  for (const auto& b : baselines) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

double BenchRow::SpeedupVs(const std::string& name) const {
  const BaselineCell* b = Baseline(name);
  return b != nullptr && b->problem.empty() ? b->speedup : 0;
}

Expected<BenchTable> ParseBenchDocument(const nlohmann::json& doc) {
  if (!doc.is_object() || StringOr(doc, "schema") != "kbuild-harness-bench/1" ||
      !doc.contains("cases") || !doc["cases"].is_array()) {
    return MakeError(ExitCode::kInternal,
                     "the benchmark results are not a kbuild-harness-bench/1 document",
                     "kbuild and the harness it compiled disagree: the project's harness comes "
                     "from KBUILD_HOME or kbuild's own share/kbuild; rebuild the project with "
                     "this kbuild (kbuild build)");
  }
  BenchTable t;
  t.device = StringOr(doc, "device");
  const nlohmann::json peak = ObjectAt(doc, "peak");
  t.peak_gbps = NumberOr(peak, "copy_bandwidth_gbps");
  t.peak_source = StringOr(peak, "source");
  for (const auto& c : doc["cases"]) {
    if (!c.is_object()) continue;
    BenchRow r = ParseRow(c);
    for (const auto& b : r.baselines) {
      if (std::find(t.baselines.begin(), t.baselines.end(), b.name) == t.baselines.end()) {
        t.baselines.push_back(b.name);
      }
    }
    t.check_ms += r.check_ms;
    if (t.launch_floor_us == 0) t.launch_floor_us = NumberOr(c, "launch_floor_us");
    t.failed += r.failed();
    t.impossible += r.impossible;
    t.rows.push_back(std::move(r));
  }
  t.elapsed_ms = NumberOr(doc, "elapsed_ms");
  const nlohmann::json geomeans = ObjectAt(doc, "geomean_speedup");
  for (const auto& name : t.baselines) {
    if (geomeans.contains(name)) t.geomeans.push_back(ParseGeomean(name, geomeans[name]));
  }
  t.geomean_vs_best = ParseGeomean("best", ObjectAt(doc, "geomean_vs_best"));
  t.host = ParseHostTimes(doc, t.baselines);
  for (const auto& p : ArrayAt(doc, "peer_problems")) {
    if (p.is_string()) t.peer_problems.push_back(p.get<std::string>());
  }
  t.peer_error = StringOr(doc, "peer_error");
  return t;
}

ExitCode BenchExitCode(const BenchTable& t) {
  return t.failed > 0 || !t.peer_error.empty() ? ExitCode::kCheckFailed : ExitCode::kOk;
}

}  // namespace kb
