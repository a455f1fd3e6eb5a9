#include "kbuild/harness/results.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "kbuild/harness/regression.h"

namespace kb::harness {
namespace {

BenchRecord Record(std::string name, double median, std::vector<double> speedups,
                   bool tiny = false) {
  BenchRecord r;
  r.benchmark = "rms_norm";
  r.case_name = std::move(name);
  r.correctness_only = tiny;
  r.time_us = Summarize({median * 0.99, median, median * 1.01});
  for (double s : speedups) r.baselines.push_back({"eager", {}, s});
  return r;
}

TEST(Results, TestRecordJson) {
  TestRecord r;
  r.test = "RmsNorm";
  r.op = "_ns::rms_norm";
  r.case_name = "7x33 bf16";
  r.shape = {7, 33};
  r.dtype = "bf16";
  r.reason = FailReason::kUnwritten;
  r.unwritten = 1;
  r.first_unwritten = 230;
  nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["schema"], kTestSchema);
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["reason"], "unwritten");
  EXPECT_EQ(j["shape"], nlohmann::json({7, 33}));
  EXPECT_EQ(j["first_unwritten"], 230);
  r.reason = FailReason::kNone;
  EXPECT_EQ(ToJson(r)["verdict"], "pass");
  EXPECT_EQ(ToJson(r)["reason"], "");
  r.skipped = true;  // a huge case without the device memory
  EXPECT_EQ(ToJson(r)["verdict"], "skip");
}

TEST(Results, ReasonNamesAreStable) {
  EXPECT_EQ(FailReasonName(FailReason::kLateWrite), "late_write");
  EXPECT_EQ(FailReasonName(FailReason::kOutOfBounds), "out_of_bounds_write");
  EXPECT_EQ(FailReasonName(FailReason::kInputModified), "input_modified");
  EXPECT_EQ(FailReasonName(FailReason::kCudaError), "cuda_error");
}

TEST(Results, BenchRecordJsonHasTheValueCheck) {
  BenchRecord r = Record("2048x4096 bf16", 20, {2});
  r.checked_against = "baseline 'at::rms_norm'";
  r.check_max_abs_error = 0.0078125;
  r.check_rel_l2_error = 0.002;
  r.check_ms = 12.5;
  nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["checked_against"], "baseline 'at::rms_norm'");
  EXPECT_EQ(j["check_max_abs_error"], 0.0078125);
  EXPECT_EQ(j["check_rel_l2_error"], 0.002);
  EXPECT_EQ(j["check_ms"], 12.5);
}

TEST(Results, BenchRecordJsonHasHostTimePerCallAndTolerance) {
  BenchRecord r = Record("2048x4096 bf16", 20, {2, 0.5});
  r.host_us_per_call = 4.25;
  r.baselines[0].host_us_per_call = 31.5;
  r.tolerance = {0.0625, 0.03125};
  nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["host_us_per_call"], 4.25);
  EXPECT_EQ(j["atol"], 0.0625);
  EXPECT_EQ(j["rtol"], 0.03125);
  ASSERT_EQ(j["baselines"].size(), 2u);
  EXPECT_EQ(j["baselines"][0]["host_us_per_call"], 31.5);
  EXPECT_EQ(j["baselines"][1]["host_us_per_call"], 0) << "not measured";
  EXPECT_EQ(j["baselines"][1]["speedup"], 0.5);
}

TEST(Results, GeomeanSkipsCorrectnessOnlyAndFailedCases) {
  BenchRecord failed = Record("8192x4096 bf16", 1, {100});
  failed.problems.push_back("physically impossible");
  std::vector<BenchRecord> records = {Record("1x1 bf16", 5, {50}, /*tiny=*/true),
                                      Record("2048x4096 bf16", 20, {2}),
                                      Record("32768x4096 bf16", 150, {8}), failed};
  nlohmann::json doc = BenchDocument(records, Peak{4273, 0, "env"}, "H200");
  EXPECT_EQ(doc["schema"], kBenchSchema);
  EXPECT_EQ(doc["failed"], 1);
  EXPECT_DOUBLE_EQ(doc["geomean_speedup"]["eager"]["speedup"].get<double>(), 4);
  EXPECT_EQ(doc["geomean_speedup"]["eager"]["cases"], 2);
  EXPECT_EQ(doc["cases"][3]["verdict"], "fail");
  EXPECT_EQ(doc["peak"]["copy_bandwidth_gbps"], 4273);
}

TEST(Results, JsonLinesAppend) {
  std::string path = ::testing::TempDir() + "/harness_lines.jsonl";
  std::remove(path.c_str());
  std::string error;
  ASSERT_TRUE(AppendJsonLine(path, {{"a", 1}}, &error)) << error;
  ASSERT_TRUE(AppendJsonLine(path, {{"a", 2}}, &error)) << error;
  std::ifstream in(path);
  std::string line1, line2;
  std::getline(in, line1);
  std::getline(in, line2);
  EXPECT_EQ(line1, R"({"a":1})");
  EXPECT_EQ(line2, R"({"a":2})");
}

TEST(Regression, FlagsChangesBeyondNoise) {
  std::vector<BenchRecord> before = {Record("a", 100, {}), Record("b", 100, {}),
                                     Record("c", 100, {}), Record("gone", 10, {})};
  std::vector<BenchRecord> after = {Record("a", 110, {}), Record("b", 101, {}), Record("c", 80, {}),
                                    Record("new", 10, {})};
  RegressionReport report =
      CompareBenchDocuments(BenchDocument(before, {}, "x"), BenchDocument(after, {}, "x"));
  ASSERT_TRUE(report.error.empty());
  ASSERT_EQ(report.rows.size(), 5u);
  EXPECT_EQ(report.rows[0].key, "rms_norm/a");
  EXPECT_EQ(report.rows[0].status, "regression");
  EXPECT_NEAR(report.rows[0].change, 0.1, 1e-12);
  EXPECT_EQ(report.rows[1].status, "noise");
  EXPECT_EQ(report.rows[2].status, "improvement");
  EXPECT_EQ(report.rows[3].status, "new");
  EXPECT_EQ(report.rows[4].status, "missing");
  EXPECT_EQ(report.regressions, 1);
}

TEST(Regression, WideSpreadRaisesTheThreshold) {
  BenchRecord noisy_before = Record("a", 100, {});
  noisy_before.time_us = Summarize({70, 100, 130});  // spread 0.48
  BenchRecord noisy_after = Record("a", 115, {});
  noisy_after.time_us = Summarize({85, 115, 145});
  RegressionReport report = CompareBenchDocuments(BenchDocument({noisy_before}, {}, "x"),
                                                  BenchDocument({noisy_after}, {}, "x"));
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(report.rows[0].status, "noise");
  EXPECT_EQ(report.regressions, 0);
}

TEST(Regression, FailedCaseCountsAsRegression) {
  BenchRecord bad = Record("a", 1, {});
  bad.problems.push_back("late work");
  RegressionReport report = CompareBenchDocuments(BenchDocument({Record("a", 100, {})}, {}, "x"),
                                                  BenchDocument({bad}, {}, "x"));
  EXPECT_EQ(report.rows[0].status, "failed");
  EXPECT_EQ(report.regressions, 1);
}

TEST(Regression, RejectsOtherDocuments) {
  RegressionReport report =
      CompareBenchDocuments({{"schema", "other"}}, BenchDocument({}, {}, "x"));
  EXPECT_EQ(
      report.error,
      "the first file is not a benchmark result (schema 'kbuild-harness-bench/1')\nhint: pass "
      "files written through KBUILD_BENCH_JSON");
}

}  // namespace
}  // namespace kb::harness
