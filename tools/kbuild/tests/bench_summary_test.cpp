#include "core/bench_summary.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kb {
namespace {

nlohmann::json Baseline(const std::string& name, double speedup, double host_us,
                        const std::string& problem = "") {
  return {
      {"name", name}, {"speedup", speedup}, {"host_us_per_call", host_us}, {"problem", problem}};
}

nlohmann::json Case(const std::string& name, nlohmann::json baselines, double host_us,
                    const std::string& verdict = "ok", bool correctness_only = false) {
  return {{"benchmark", "rms_norm"},
          {"case", name},
          {"verdict", verdict},
          {"correctness_only", correctness_only},
          {"host_us_per_call", host_us},
          {"baselines", std::move(baselines)},
          {"ours_python", {{"host_us_per_call", host_us * 2}}}};
}

nlohmann::json Document() {
  return {
      {"schema", "kbuild-harness-bench/1"},
      {"cases",
       {Case("a",
             {Baseline("at::rms_norm", 1.5, 3.0), Baseline("torch.compile", 1.2, 30.0),
              Baseline("liger", 0, 12.0, "incorrect (mismatch): 3 of 100 elements")},
             4.0),
        Case("b",
             {Baseline("at::rms_norm", 1.1, 3.2), Baseline("torch.compile", 1.3, 32.0),
              Baseline("liger", 0.9, 14.0)},
             4.2),
        // Neither a failed case nor a correctness-only one scores.
        Case("c", {Baseline("at::rms_norm", 50, 100), Baseline("liger", 0.01, 100)}, 100, "fail"),
        Case("d", {Baseline("at::rms_norm", 50, 100)}, 100, "ok", true)}},
      {"geomean_speedup", {{"at::rms_norm", {{"speedup", 1.3}, {"cases", 2}}}}}};
}

TEST(BenchSummary, VsBestIsTheFastestBaselineThatCounts) {
  nlohmann::json doc = Document();
  AddBenchSummary(&doc);
  // Case a: liger failed its value check, so torch.compile (1.2x) is the fastest that counts.
  EXPECT_EQ(doc["cases"][0]["vs_best"],
            (nlohmann::json{{"name", "torch.compile"}, {"speedup", 1.2}}));
  // Case b: liger is faster than our op; vs best says so (below 1).
  EXPECT_EQ(doc["cases"][1]["vs_best"], (nlohmann::json{{"name", "liger"}, {"speedup", 0.9}}));
  EXPECT_FALSE(doc["cases"][2].contains("vs_best"));
  EXPECT_FALSE(doc["cases"][3].contains("vs_best"));
  EXPECT_NEAR(doc["geomean_vs_best"]["speedup"].get<double>(), std::sqrt(1.2 * 0.9), 1e-12);
  EXPECT_EQ(doc["geomean_vs_best"]["cases"], 2);
}

TEST(BenchSummary, GeomeansCoverEveryBaselineWhereItCounts) {
  nlohmann::json doc = Document();
  AddBenchSummary(&doc);
  const nlohmann::json& g = doc["geomean_speedup"];
  EXPECT_NEAR(g["at::rms_norm"]["speedup"].get<double>(), std::sqrt(1.5 * 1.1), 1e-12);
  EXPECT_EQ(g["at::rms_norm"]["cases"], 2);
  EXPECT_NEAR(g["torch.compile"]["speedup"].get<double>(), std::sqrt(1.2 * 1.3), 1e-12);
  EXPECT_DOUBLE_EQ(g["liger"]["speedup"].get<double>(), 0.9);
  EXPECT_EQ(g["liger"]["cases"], 1);  // its incorrect case does not average in
}

TEST(BenchSummary, HostTimesAreMediansOverScoredCases) {
  nlohmann::json doc = Document();
  AddBenchSummary(&doc);
  const nlohmann::json& host = doc["host_us_per_call"];
  EXPECT_DOUBLE_EQ(host["ours"].get<double>(), 4.1);
  EXPECT_DOUBLE_EQ(host["ours_python"].get<double>(), 8.2);
  EXPECT_DOUBLE_EQ(host["baselines"]["at::rms_norm"].get<double>(), 3.1);
  EXPECT_DOUBLE_EQ(host["baselines"]["torch.compile"].get<double>(), 31.0);
  // A peer that failed its value check still cost its host time.
  EXPECT_DOUBLE_EQ(host["baselines"]["liger"].get<double>(), 13.0);
}

TEST(BenchSummary, NoBaselineMeansNoVsBestAndZeroHostTimes) {
  nlohmann::json doc = {{"schema", "kbuild-harness-bench/1"},
                        {"cases", {{{"benchmark", "x"}, {"case", "1"}, {"verdict", "ok"}}}}};
  AddBenchSummary(&doc);
  EXPECT_FALSE(doc["cases"][0].contains("vs_best"));
  EXPECT_EQ(doc["geomean_vs_best"]["cases"], 0);
  EXPECT_EQ(doc["geomean_speedup"], nlohmann::json::object());
  EXPECT_EQ(doc["host_us_per_call"]["ours"], 0.0);
}

// The harness document comes from the project's binary: odd types are skipped, not thrown on.
TEST(BenchSummary, WrongTypesInTheDocumentAreSkipped) {
  nlohmann::json doc = Document();
  doc["cases"][0]["baselines"][0]["speedup"] = "fast";
  doc["cases"][0]["host_us_per_call"] = nullptr;
  doc["cases"][1]["baselines"] = "none";
  AddBenchSummary(&doc);
  EXPECT_EQ(doc["cases"][0]["vs_best"]["name"], "torch.compile");
  EXPECT_FALSE(doc["cases"][1].contains("vs_best"));
  EXPECT_DOUBLE_EQ(doc["host_us_per_call"]["ours"].get<double>(), 4.2);
}

}  // namespace
}  // namespace kb
