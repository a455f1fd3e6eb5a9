#include "core/bench_results.h"

#include <gtest/gtest.h>

#include "core/bench_render.h"
#include "core/bench_summary.h"

namespace kb {
namespace {

nlohmann::json Case(const std::string& name, double median, double gbps, double pct, double speedup,
                    std::vector<std::string> problems = {}) {
  return {{"benchmark", "scale_add"},
          {"case", name},
          {"correctness_only", false},
          {"time_us", {{"median", median}, {"p10", median * 0.99}, {"p90", median * 1.02}}},
          {"gbps", gbps},
          {"percent_of_peak", pct},
          {"tflops", 0},
          {"baselines", nlohmann::json::array({{{"name", "at::add"}, {"speedup", speedup}}})},
          {"verdict", problems.empty() ? "ok" : "fail"},
          {"problems", problems}};
}

nlohmann::json Document() {
  return {{"schema", "kbuild-harness-bench/1"},
          {"device", "NVIDIA H200"},
          {"peak", {{"copy_bandwidth_gbps", 4273.0}, {"source", "KBUILD_PEAK_BW_GBPS"}}},
          {"cases",
           nlohmann::json::array(
               {Case("1048576 bf16", 10, 629.1, 14.7, 1.5),
                Case("268435456 bf16", 400, 9000, 210.6, 9.0,
                     {"physically impossible: 9000 GB/s is above the measured copy bandwidth"})})},
          {"geomean_speedup", {{"at::add", {{"speedup", 1.5}, {"cases", 1}}}}},
          {"failed", 1}};
}

TEST(BenchResults, ParsesCasesBaselinesAndGeomeans) {
  auto table = ParseBenchDocument(Document());
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->device, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(table->peak_gbps, 4273.0);
  EXPECT_EQ(table->baselines, std::vector<std::string>{"at::add"});
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->rows[0].Key(), "scale_add/1048576 bf16");
  EXPECT_EQ(table->rows[0].Verdict(), "ok");
  EXPECT_TRUE(table->rows[1].impossible);
  EXPECT_EQ(table->rows[1].Verdict(), "IMPOSSIBLE");
  EXPECT_EQ(table->failed, 1);
  EXPECT_EQ(table->impossible, 1);
  ASSERT_EQ(table->geomeans.size(), 1u);
  EXPECT_EQ(table->geomeans[0].cases, 1);
  EXPECT_EQ(BenchExitCode(*table), ExitCode::kCheckFailed);
}

TEST(BenchResults, GraphRunsReadCasesAgainstTheLaunchFloor) {
  nlohmann::json doc = Document();
  doc["cases"] = nlohmann::json::array(
      {Case("1 bf16", 1.26, 20, 0.5, 3.4), Case("128 bf16", 1.95, 1080, 25.6, 3.4)});
  for (auto& c : doc["cases"]) c["launch_floor_us"] = 0.65;
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_DOUBLE_EQ(table->launch_floor_us, 0.65);
  const std::string line =
      "launch floor: an empty kernel takes 0.65 us per call timed the same way; these cases take "
      "1.9-3.0x of it";
  EXPECT_NE(RenderBenchTable(*table).find(line + "\n"), std::string::npos);
  EXPECT_NE(BenchMarkdown(*table, "header").find("- " + line + "\n"), std::string::npos);
}

TEST(BenchResults, NoLaunchFloorLineWithoutAMeasurement) {
  auto table = ParseBenchDocument(Document());  // flushed runs carry no floor
  ASSERT_TRUE(table.ok());
  EXPECT_DOUBLE_EQ(table->launch_floor_us, 0);
  EXPECT_EQ(RenderBenchTable(*table).find("launch floor"), std::string::npos);
}

TEST(BenchResults, ShowsWhatEachCaseWasCheckedAgainstAndTheCheckShare) {
  nlohmann::json doc = Document();
  doc["cases"][0]["checked_against"] = "baseline 'at::add'";
  doc["cases"][0]["check_ms"] = 800.0;
  doc["cases"][1]["checked_against"] = "reference";
  doc["cases"][1]["check_ms"] = 400.0;
  doc["elapsed_ms"] = 41000.0;
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->rows[0].checked_against, "baseline 'at::add'");
  EXPECT_DOUBLE_EQ(table->check_ms, 1200.0);
  const std::string text = RenderBenchTable(*table);
  EXPECT_NE(text.find("checked"), std::string::npos) << text;
  EXPECT_NE(text.find("baseline 'at::add'"), std::string::npos) << text;
  EXPECT_NE(text.find("value checks: 1.2 s of 41.0 s (2.9%)\n"), std::string::npos) << text;
  EXPECT_NE(BenchMarkdown(*table, "h").find("| reference |"), std::string::npos);
}

TEST(BenchResults, ComputeBoundCasesShowTheShareOfTheUnitsPeak) {
  nlohmann::json doc = Document();
  doc["cases"] = nlohmann::json::array({Case("8192x8192x8192 fp32", 23390, 34, 70.3, 0.92),
                                        Case("1x4096x4096 fp32", 29, 2318, 54.8, 0.83)});
  doc["cases"][0]["percent_of_compute_peak"] = 70.3;
  doc["cases"][1]["percent_of_compute_peak"] = 1.7;  // the bandwidth share is the larger
  for (auto& c : doc["cases"]) {
    c["compute_unit"] = "fp32 CUDA cores";
    c["compute_peak_tflops"] = 66.9;
  }
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_TRUE(table->rows[0].ComputeBound());
  EXPECT_FALSE(table->rows[1].ComputeBound());
  const std::string text = RenderBenchTable(*table);
  EXPECT_NE(text.find("70.3% (compute)"), std::string::npos) << text;
  EXPECT_NE(text.find("54.8% "), std::string::npos) << text;
  EXPECT_EQ(text.find("54.8% (compute)"), std::string::npos) << text;
  EXPECT_NE(text.find("% of peak (compute) = of the fp32 CUDA cores theoretical peak, 66.9 "
                      "TFLOP/s"),
            std::string::npos)
      << text;
  // A bandwidth-only run says nothing of compute.
  auto plain = ParseBenchDocument(Document());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(RenderBenchTable(*plain).find("(compute)"), std::string::npos);
}

TEST(BenchResults, NoValueCheckLineWithoutARunTime) {
  auto table = ParseBenchDocument(Document());
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(RenderBenchTable(*table).find("value checks:"), std::string::npos);
  EXPECT_EQ(table->rows[0].checked_against, "");
}

TEST(BenchResults, RejectsADocumentOfAnotherSchema) {
  auto table = ParseBenchDocument({{"schema", "kbuild-harness-test/1"}});
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().code, ExitCode::kInternal);
  EXPECT_EQ(table.error().message,
            "the benchmark results are not a kbuild-harness-bench/1 document");
}

TEST(BenchResults, TableFlagsImpossibleResultsLoudly) {
  auto table = ParseBenchDocument(Document());
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(RenderBenchTable(*table),
            "case                      median us  p10-p90 us     GB/s  % of peak  TFLOP/s  "
            "vs at::add  checked  launches  verdict\n"
            "------------------------  ---------  -------------  ----  ---------  -------  "
            "----------  -------  --------  ----------\n"
            "scale_add/1048576 bf16    10.00      9.90-10.20     629   14.7%      -        "
            "1.50x       -        -         ok\n"
            "scale_add/268435456 bf16  400.00     396.00-408.00  9000  210.6%     -        "
            "9.00x       -        -         IMPOSSIBLE\n"
            "geomean vs at::add: 1.50x over 1 case\n"
            "100% = 4273 GB/s measured copy bandwidth (KBUILD_PEAK_BW_GBPS)\n"
            "\nIMPOSSIBLE RESULT scale_add/268435456 bf16:\n"
            "  physically impossible: 9000 GB/s is above the measured copy bandwidth\n");
}

TEST(BenchResults, LaunchesColumnShowsForeignKernels) {
  nlohmann::json doc = Document();
  doc["cases"][0]["launches"] = 2;
  doc["cases"][0]["project_launches"] = 1;
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->rows[0].provenance.launches, 2);
  EXPECT_NE(RenderBenchTable(*table).find("1.50x       -        2 (1 foreign)  ok"),
            std::string::npos)
      << RenderBenchTable(*table);
}

TEST(BenchResults, CsvHasOneRowPerCaseAndQuotesCommas) {
  nlohmann::json doc = Document();
  doc["cases"][0]["case"] = "a,b";
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(BenchCsv(*table),
            "benchmark,case,correctness_only,median_us,p10_us,p90_us,gbps,percent_of_peak,"
            "tflops,host_us_per_call,speedup vs at::add,host_us_per_call at::add,speedup vs best,"
            "best baseline,verdict\n"
            "scale_add,\"a,b\",false,10,9.9,10.2,629.1,14.7,0,,1.5,,,,ok\n"
            "scale_add,268435456 bf16,false,400,396,408,9000,210.6,0,,9,,,,IMPOSSIBLE\n");
}

TEST(BenchResults, MarkdownStartsWithTheHeaderLineAndEscapesPipes) {
  nlohmann::json doc = Document();
  doc["cases"][0]["case"] = "a|b";
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  const std::string md = BenchMarkdown(*table, "2026-11-30 · NVIDIA H200");
  EXPECT_EQ(md.substr(0, md.find('\n')), "2026-11-30 · NVIDIA H200");
  EXPECT_NE(md.find("| case | median us | p10-p90 us | GB/s | % of peak | TFLOP/s | vs at::add | "
                    "checked | launches | verdict |\n"
                    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"),
            std::string::npos);
  EXPECT_NE(md.find("| scale_add/a\\|b | 10.00 |"), std::string::npos);
  EXPECT_NE(md.find("- geomean vs at::add: 1.50x over 1 case\n"), std::string::npos);
}

// A run with the Python peers merged in (peer_results.h) and the summary added.
nlohmann::json PeersDocument() {
  nlohmann::json doc = Document();
  doc["cases"].erase(1);
  doc["cases"].push_back(Case("4194304 bf16", 40, 2500, 58.5, 1.1));
  const double host[] = {4.0, 4.2};
  const nlohmann::json peers[] = {
      {{{"name", "torch.compile"},
        {"source", "python"},
        {"speedup", 1.2},
        {"host_us_per_call", 30.0},
        {"problem", ""}},
       {{"name", "liger"},
        {"source", "python"},
        {"speedup", 0},
        {"host_us_per_call", 12.0},
        {"problem", "incorrect (mismatch): 3 of 1048576 elements outside atol=0.0625"}}},
      {{{"name", "torch.compile"},
        {"source", "python"},
        {"speedup", 1.3},
        {"host_us_per_call", 32.0},
        {"problem", ""}},
       {{"name", "liger"},
        {"source", "python"},
        {"speedup", 0.9},
        {"host_us_per_call", 14.0},
        {"problem", ""}}}};
  for (size_t i = 0; i < 2; ++i) {
    nlohmann::json& c = doc["cases"][i];
    c["host_us_per_call"] = host[i];
    c["baselines"][0]["host_us_per_call"] = 3.0 + 0.2 * static_cast<double>(i);
    for (const auto& p : peers[i]) c["baselines"].push_back(p);
    c["ours_python"] = {{"host_us_per_call", 9.0 + 0.4 * static_cast<double>(i)}};
  }
  doc["peer_problems"] = {
      "scale_add/1048576 bf16: liger: incorrect (mismatch): 3 of 1048576 elements outside "
      "atol=0.0625",
      "quack: not available: ModuleNotFoundError: No module named 'quack'"};
  AddBenchSummary(&doc);
  return doc;
}

TEST(BenchResults, PeersAreColumnsWithVsBestHostTimeAndProblems) {
  auto table = ParseBenchDocument(PeersDocument());
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->baselines, (std::vector<std::string>{"at::add", "torch.compile", "liger"}));
  ASSERT_TRUE(table->ShowsBest());
  EXPECT_EQ(table->rows[0].best_baseline, "torch.compile");
  EXPECT_EQ(table->rows[1].best_baseline, "liger");
  const std::string text = RenderBenchTable(*table);
  EXPECT_NE(text.find("vs at::add  vs torch.compile  vs liger  vs best  "), std::string::npos)
      << text;
  // Case 1: liger failed its value check; the fastest baseline that counts is torch.compile.
  EXPECT_NE(text.find("1.50x       1.20x             problem   1.20x (torch.compile)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1.10x       1.30x             0.90x     0.90x (liger)"), std::string::npos)
      << text;
  const std::string summary =
      "geomean vs at::add: 1.28x over 2 cases\n"
      "geomean vs torch.compile: 1.25x over 2 cases\n"
      "geomean vs liger: 0.90x over 1 case\n"
      "geomean vs best: 1.04x over 2 cases (the fastest baseline of each case)\n"
      "host us/call (median over cases; users pay this per call in eager mode): ours 4.1, ours "
      "via python 9.2, at::add 3.1, torch.compile 31.0, liger 13.0\n"
      "peer problem: scale_add/1048576 bf16: liger: incorrect (mismatch): 3 of 1048576 elements "
      "outside atol=0.0625\n"
      "peer problem: quack: not available: ModuleNotFoundError: No module named 'quack'\n";
  EXPECT_NE(text.find(summary), std::string::npos) << text;
  // A peer's problem does not fail our case.
  EXPECT_EQ(table->failed, 0);
  EXPECT_EQ(BenchExitCode(*table), ExitCode::kOk);
}

TEST(BenchResults, CsvAndMarkdownCarryHostTimesAndVsBest) {
  auto table = ParseBenchDocument(PeersDocument());
  ASSERT_TRUE(table.ok());
  const std::string csv = BenchCsv(*table);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "benchmark,case,correctness_only,median_us,p10_us,p90_us,gbps,percent_of_peak,tflops,"
            "host_us_per_call,speedup vs at::add,host_us_per_call at::add,speedup vs "
            "torch.compile,host_us_per_call torch.compile,speedup vs liger,host_us_per_call "
            "liger,speedup vs best,best baseline,verdict");
  // liger's speedup is empty where it failed; its host time is still there.
  EXPECT_NE(csv.find("scale_add,1048576 bf16,false,10,9.9,10.2,629.1,14.7,0,4,1.5,3,1.2,30,,12,1.2,"
                     "torch.compile,ok\n"),
            std::string::npos)
      << csv;
  const std::string md = BenchMarkdown(*table, "h");
  EXPECT_NE(md.find("| vs at::add | vs torch.compile | vs liger | vs best | checked |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 1.50x | 1.20x | problem | 1.20x (torch.compile) |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("- host us/call (median over cases; users pay this per call in eager mode): "
                    "ours 4.1,"),
            std::string::npos);
  EXPECT_NE(md.find("- peer problem: quack: not available:"), std::string::npos) << md;
}

TEST(BenchResults, OneBaselineHasNoVsBestColumn) {
  nlohmann::json doc = Document();
  AddBenchSummary(&doc);
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  EXPECT_FALSE(table->ShowsBest());
  EXPECT_EQ(RenderBenchTable(*table).find("best"), std::string::npos);
}

TEST(BenchResults, PeersThatCouldNotBeTimedAreSaidUnderTheFailures) {
  nlohmann::json doc = Document();
  doc["cases"].erase(1);
  doc["peer_error"] = "the peer worker exited with code 1: peers.py: SyntaxError: invalid syntax";
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  const std::string text = RenderBenchTable(*table);
  EXPECT_TRUE(
      text.ends_with("\nPEERS NOT TIMED:\n  the peer worker exited with code 1: peers.py: "
                     "SyntaxError: invalid syntax\n"))
      << text;
  EXPECT_NE(BenchMarkdown(*table, "h").find("- peers not timed: the peer worker exited"),
            std::string::npos);
  // The C++ results stand, but the run fails: the comparison the project asked for is missing.
  EXPECT_EQ(table->failed, 0);
  EXPECT_EQ(BenchExitCode(*table), ExitCode::kCheckFailed);
}

// A baseline with a problem is not compared, whatever speedup its entry carries.
TEST(BenchResults, SpeedupVsIsZeroForABaselineWithAProblemOrNone) {
  BenchRow row;
  row.baselines = {{"liger", 2.0, 12.0, "python", "incorrect (mismatch)"},
                   {"torch.compile", 1.2, 30.0, "python", ""}};
  EXPECT_EQ(row.SpeedupVs("liger"), 0);
  EXPECT_EQ(row.SpeedupVs("quack"), 0);
  EXPECT_DOUBLE_EQ(row.SpeedupVs("torch.compile"), 1.2);
}

TEST(BenchResults, AllOkIsExitZero) {
  nlohmann::json doc = Document();
  doc["cases"].erase(1);
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(BenchExitCode(*table), ExitCode::kOk);
}

}  // namespace
}  // namespace kb
