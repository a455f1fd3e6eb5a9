#include "core/results_writer.h"

#include <gtest/gtest.h>

#include "core/bench_compare.h"
#include "core/bench_summary.h"

namespace kb {
namespace {

nlohmann::json Document(double median) {
  return {{"schema", "kbuild-harness-bench/1"},
          {"device", "NVIDIA H200"},
          {"cases",
           {{{"benchmark", "scale_add"},
             {"case", "1048576 bf16"},
             {"time_us", {{"median", median}, {"p10", median * 0.99}, {"p90", median * 1.01}}},
             {"gbps", 600.0},
             {"percent_of_peak", 14.0},
             {"baselines", nlohmann::json::array({{{"name", "at::add"}, {"speedup", 1.5}}})},
             {"verdict", "ok"},
             {"problems", nlohmann::json::array()}}}}};
}

RunMetadata Meta() {
  return {"2026-11-30T14:25:01",
          "NVIDIA H200",
          "2.11.0+cu130",
          "13.0",
          "0.1.0",
          "0123456789abcdef0123456789abcdef01234567",
          true};
}

TEST(ResultsWriter, HeaderLineNamesDateGpuTorchCuda) {
  EXPECT_EQ(MetadataHeaderLine(Meta()),
            "2026-11-30T14:25:01 · NVIDIA H200 · torch 2.11.0+cu130 · CUDA 13.0 · kbuild 0.1.0 · "
            "commit 0123456789ab (dirty)");
}

// A knob's build says so wherever its numbers go: the header line, the JSON and back.
TEST(ResultsWriter, TheBuildsDefinesAreRecordedAndNamedInTheHeader) {
  RunMetadata meta = Meta();
  meta.defines = {"TILE=64", "USE_FAST=1"};
  EXPECT_EQ(MetadataHeaderLine(meta),
            "2026-11-30T14:25:01 · NVIDIA H200 · torch 2.11.0+cu130 · CUDA 13.0 · kbuild 0.1.0 · "
            "commit 0123456789ab (dirty) · --define TILE=64 --define USE_FAST=1");
  const nlohmann::json run = RunMetadataToJson(meta);
  EXPECT_EQ(run["defines"], nlohmann::json::array({"TILE=64", "USE_FAST=1"}));
  EXPECT_EQ(RunMetadataFromJson(run).defines, meta.defines);
  EXPECT_EQ(RunMetadataToJson(Meta())["defines"], nlohmann::json::array());
}

// Results written before defines were recorded, or edited by hand, read as no defines.
TEST(ResultsWriter, DefinesMissingOrMistypedReadAsNone) {
  EXPECT_TRUE(RunMetadataFromJson({{"gpu", "NVIDIA H200"}}).defines.empty());
  EXPECT_TRUE(RunMetadataFromJson({{"defines", "TILE=64"}}).defines.empty());
  EXPECT_EQ(RunMetadataFromJson({{"defines", {"A=1", 7}}}).defines,
            std::vector<std::string>{"A=1"});
}

TEST(ResultsWriter, ADefinesNoteOnlyWhenTheBuildsDiffer) {
  RunMetadata knob = Meta();
  knob.defines = {"TILE=64"};
  EXPECT_EQ(DefinesNote(Meta(), Meta()), "");
  EXPECT_EQ(DefinesNote(knob, knob), "");
  EXPECT_EQ(DefinesNote(knob, Meta()),
            "the earlier run was built with --define TILE=64, this one with none");
  RunMetadata two = Meta();
  two.defines = {"TILE=64", "STAGES=3"};
  EXPECT_EQ(DefinesNote(Meta(), two),
            "the earlier run was built with none, this one with --define TILE=64 --define "
            "STAGES=3");
}

TEST(ResultsWriter, WritesStampedAndLatestFilesOfEveryKind) {
  MemoryFileSystem fs;
  auto table = ParseBenchDocument(Document(10));
  ASSERT_TRUE(table.ok());
  auto written = WriteResultFiles(
      fs, "/p/results", RenderResultFiles(Document(10), *table, Meta(), "20261130-142501"));
  ASSERT_TRUE(written.ok()) << written.error().message;
  std::vector<std::string> names;
  for (const auto& p : *written) names.push_back(p.filename().string());
  EXPECT_EQ(names,
            (std::vector<std::string>{"bench-20261130-142501.json", "bench-20261130-142501.csv",
                                      "bench-20261130-142501.md", "bench-20261130-142501.svg",
                                      "latest.json", "latest.csv", "latest.md", "latest.svg"}));
  const auto doc = nlohmann::json::parse(*fs.Read("/p/results/latest.json"));
  EXPECT_EQ(doc["schema"], "kbuild-harness-bench/1");
  EXPECT_EQ(doc["run"]["gpu"], "NVIDIA H200");
  EXPECT_EQ(doc["run"]["torch"], "2.11.0+cu130");
  EXPECT_EQ(doc["run"]["git_dirty"], true);
  EXPECT_EQ(*fs.Read("/p/results/latest.csv"), *fs.Read("/p/results/bench-20261130-142501.csv"));
  EXPECT_TRUE(fs.Read("/p/results/latest.md")->starts_with("# Benchmark results\n\n2026-11-30"));
}

// results/ planted as a link (or a file) would take every result elsewhere: refused, nothing
// written.
TEST(ResultsWriter, AResultsFolderThatIsALinkIsRefused) {
  MemoryFileSystem fs;
  fs.PlantSymlink("/p/results", "/elsewhere");
  auto table = ParseBenchDocument(Document(10));
  ASSERT_TRUE(table.ok());
  auto written = WriteResultFiles(
      fs, "/p/results", RenderResultFiles(Document(10), *table, Meta(), "20261130-142501"));
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code, ExitCode::kUsage);
  EXPECT_EQ(written.error().Located(), "/p/results: the results folder is a symbolic link");
  EXPECT_FALSE(fs.Exists("/elsewhere/latest.json"));
}

// A GPU or toolchain name that is not UTF-8 is written as U+FFFD, not thrown on by the JSON dump.
TEST(ResultsWriter, InvalidUtf8InTheRunIsReplacedNotThrown) {
  auto table = ParseBenchDocument(Document(10));
  ASSERT_TRUE(table.ok());
  RunMetadata meta = Meta();
  meta.gpu = "NVIDIA \xff H200";
  const auto files = RenderResultFiles(Document(10), *table, meta, "20261130-142501");
  const auto doc = nlohmann::json::parse(files.front().second);
  EXPECT_EQ(doc["run"]["gpu"], "NVIDIA \xef\xbf\xbd H200");
}

// A results file written by kbuild bench is a valid --compare input.
TEST(ResultsWriter, ResultDocumentComparesAgainstALaterRun) {
  MemoryFileSystem fs;
  (void)fs.Write("/p/results/old.json", ResultDocument(Document(10), Meta()).dump());
  auto slower = CompareWithFile(fs, "/p/results/old.json", Document(12));
  ASSERT_TRUE(slower.ok()) << slower.error().message;
  EXPECT_EQ(slower->regressions, 1);
  EXPECT_EQ(slower->rows[0].status, "regression");
  EXPECT_EQ(RenderCompareTable(*slower),
            "case                    before us  after us  change  noise  status\n"
            "----------------------  ---------  --------  ------  -----  ----------\n"
            "scale_add/1048576 bf16  10.00      12.00     +20.0%  ±3.0%  REGRESSION\n"
            "1 regression beyond noise\n");
  auto same = CompareWithFile(fs, "/p/results/old.json", Document(10.1));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->regressions, 0);
  EXPECT_EQ(same->rows[0].status, "noise");
}

// `kbuild bench --compare results/latest.json` replaces that very file: the baseline is read
// first, so the comparison is against the earlier run (seen comparing a run with itself on the
// H200, 2026-11-30, before this was fixed).
TEST(ResultsWriter, BaselineReadBeforeResultsAreRewrittenStaysTheEarlierRun) {
  MemoryFileSystem fs;
  (void)fs.Write("/p/results/latest.json", ResultDocument(Document(10), Meta()).dump());
  auto baseline = LoadBenchBaseline(fs, "/p/results/latest.json");
  ASSERT_TRUE(baseline.ok());
  (void)fs.Write("/p/results/latest.json", ResultDocument(Document(12), Meta()).dump());
  auto compared = CompareWithBaseline(*baseline, Document(12));
  ASSERT_TRUE(compared.ok());
  EXPECT_EQ(compared->rows[0].before_us, 10);
  EXPECT_EQ(compared->regressions, 1);
}

// With a choice of baselines the chart shows each case against its fastest one.
TEST(ResultsWriter, ChartIsAgainstTheFastestBaselineWhenThereAreSeveral) {
  nlohmann::json doc = Document(10);
  doc["cases"][0]["baselines"].push_back(
      {{"name", "torch.compile"}, {"source", "python"}, {"speedup", 1.2}, {"problem", ""}});
  AddBenchSummary(&doc);
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(ChartedBaseline(*table), "the fastest baseline");
  EXPECT_DOUBLE_EQ(ChartedSpeedup(*table, table->rows[0]), 1.2);
  const auto files = RenderResultFiles(doc, *table, Meta(), "1");
  const std::string& svg = files[3].second;
  EXPECT_NE(svg.find("speedup vs the fastest baseline"), std::string::npos);
  EXPECT_NE(svg.find(">1.20x<"), std::string::npos);
  // The JSON written carries the same vs best.
  EXPECT_EQ(nlohmann::json::parse(files[0].second)["cases"][0]["vs_best"]["name"], "torch.compile");
}

// One baseline: its own speedup in every row, found by name, not by position in the row.
TEST(ResultsWriter, ChartWithOneBaselineUsesItsSpeedupByName) {
  nlohmann::json doc = Document(10);
  doc["cases"].push_back(doc["cases"][0]);
  doc["cases"][1]["case"] = "2 bf16";
  doc["cases"][1]["baselines"] = nlohmann::json::array();
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(ChartedBaseline(*table), "at::add");
  EXPECT_DOUBLE_EQ(ChartedSpeedup(*table, table->rows[0]), 1.5);
  EXPECT_DOUBLE_EQ(ChartedSpeedup(*table, table->rows[1]), 0);
}

TEST(ResultsWriter, CompareWithAMissingOrForeignFileIsBadUsage) {
  MemoryFileSystem fs;
  auto missing = CompareWithFile(fs, "/p/none.json", Document(10));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ExitCode::kUsage);
  EXPECT_EQ(missing.error().message,
            "cannot read --compare file /p/none.json: cannot read file: No such file or directory");
  (void)fs.Write("/p/other.json", "{\"schema\": \"x\", \"cases\": []}");
  auto foreign = CompareWithFile(fs, "/p/other.json", Document(10));
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().code, ExitCode::kUsage);
  EXPECT_EQ(foreign.error().message,
            "the first file is not a benchmark result (schema 'kbuild-harness-bench/1')");
  EXPECT_EQ(foreign.error().hint, "pass files written through KBUILD_BENCH_JSON");
}

}  // namespace
}  // namespace kb
