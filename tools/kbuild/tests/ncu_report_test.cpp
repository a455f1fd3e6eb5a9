#include "core/ncu_report.h"

#include <gtest/gtest.h>

#include "test_data.h"

namespace kb {
namespace {

const char kHeader[] =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string Row(const std::string& id, const std::string& kernel, const std::string& metric,
                const std::string& unit, const std::string& value,
                const std::string& section = "Section") {
  return "\"" + id + "\",\"1\",\"python3\",\"host\",\"" + kernel +
         "\",\"1\",\"7\",\"(256, 1, 1)\",\"(64, 1, 1)\",\"0\",\"9.0\",\"" + section + "\",\"" +
         metric + "\",\"" + unit + "\",\"" + value + "\"\n";
}

TEST(NcuReport, ParsesTheRecordedH200Report) {
  const auto report = ParseNcuCsv(ReadTestData("ncu-rmsnorm-small-shapes.csv"));
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->kernels.size(), 15u);
  // 32 lines before the header: ncu's ==PROF== / ==WARNING== lines and the program's prints.
  EXPECT_EQ(report->skipped_lines, 32);
  for (size_t i = 0; i < report->kernels.size(); ++i) EXPECT_EQ(report->kernels[i].id, long(i));

  const NcuKernel& ours = report->kernels[0];
  EXPECT_EQ(ours.name,
            "void kernels_common::RmsNormRegisterKernel<__nv_bfloat16, __nv_bfloat16, 8, 1, 0, "
            "0>(T1 *, const T1 *, const T2 *, long, int, int, long, long, float, float)");
  EXPECT_EQ(ours.block, "(512, 1, 1)");
  EXPECT_EQ(ours.grid, "(128, 1, 1)");
  ASSERT_NE(ours.Find("gpu__time_duration.sum"), nullptr);
  EXPECT_EQ(ours.Find("gpu__time_duration.sum")->unit, "ns");
  EXPECT_EQ(ours.Find("gpu__time_duration.sum")->text, "3,712");
  EXPECT_EQ(ours.Value("gpu__time_duration.sum"), 3712);
  EXPECT_EQ(ours.Value("launch__registers_per_thread"), 28);
  EXPECT_EQ(ours.Value("Elapsed Cycles"), 7279);
  EXPECT_DOUBLE_EQ(*ours.Value("SM Active Cycles"), 2841.43);
  EXPECT_EQ(ours.Value("dram__bytes_read.sum"), 1062400);
  EXPECT_DOUBLE_EQ(*ours.Value("DRAM Frequency"), 3179597701.15);
  EXPECT_EQ(ours.Value("Executed Instructions"), 335872);
  EXPECT_EQ(ours.Find("Compute (SM) Throughput")->unit, "%");
  // Rule rows carry ncu's guidance, with commas inside the quoted description.
  ASSERT_EQ(ours.rules.size(), 5u);
  EXPECT_EQ(ours.rules[0].name, "SOLBottleneck");
  EXPECT_EQ(ours.rules[0].type, "OPT");
  EXPECT_NE(ours.rules[0].description.find("only 0.2 full waves"), std::string::npos);

  EXPECT_EQ(report->kernels[2].name, "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0");
  EXPECT_EQ(report->kernels[3].name, "_rms_norm_forward_kernel");
  EXPECT_EQ(report->kernels[6].block, "(32, 4, 1)");
  EXPECT_EQ(report->kernels[7].grid, "(512, 1, 1)");
  EXPECT_EQ(report->kernels[7].Value("Elapsed Cycles"), 8413);
  EXPECT_EQ(report->kernels[14].grid, "(256, 1, 1)");
  EXPECT_EQ(report->kernels[14].Value("launch__registers_per_thread"), 96);
}

TEST(NcuReport, SkipsNonCsvLinesBeforeAndBetweenRowsAndOrdersById) {
  const std::string text = std::string("==PROF== Connected to process 1\n") + kHeader +
                           Row("1", "b", "Duration", "us", "2.50") +
                           "profiled: b 128x4096\n"
                           "==PROF== Disconnected from process 1\r\n" +
                           Row("0", "a", "Duration", "ns", "1,024");
  const auto report = ParseNcuCsv(text);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->kernels.size(), 2u);
  EXPECT_EQ(report->skipped_lines, 3);
  EXPECT_EQ(report->kernels[0].name, "a");
  EXPECT_EQ(report->kernels[0].Value("Duration"), 1024);
  EXPECT_EQ(report->kernels[1].Value("Duration"), 2.5);
}

TEST(NcuReport, UnquotesCommasAndDoubledQuotes) {
  const std::string text =
      std::string(kHeader) + Row("0", "void k<1, 2>(\"\"x\"\", int)", "Note", "", "a, \"\"b\"\"");
  const auto report = ParseNcuCsv(text);
  ASSERT_TRUE(report.ok()) << report.error().message;
  const NcuKernel& kernel = report->kernels.at(0);
  EXPECT_EQ(kernel.name, "void k<1, 2>(\"x\", int)");
  EXPECT_EQ(kernel.Find("Note")->text, "a, \"b\"");
  EXPECT_FALSE(kernel.Value("Note").has_value());
}

// With --print-units base, ncu's details page has "Memory Throughput" twice
// (H200, CUDA 13.0, 2026-12-01): a % in SpeedOfLight, byte/second in MemoryWorkloadAnalysis.
TEST(NcuReport, OneMetricNameInTwoSectionsKeepsBothRows) {
  const char kSol[] = "GPU Speed Of Light Throughput";
  const char kMwa[] = "Memory Workload Analysis";
  const std::string text =
      std::string(kHeader) + Row("0", "k", "Memory Throughput", "%", "70.85", kSol) +
      Row("0", "k", "Memory Throughput", "byte/second", "3403052527254.71", kMwa) +
      Row("0", "k", "Memory Throughput", "%", "71.5", kSol);  // replaces
  const auto report = ParseNcuCsv(text);
  ASSERT_TRUE(report.ok()) << report.error().message;
  const NcuKernel& kernel = report->kernels.at(0);
  EXPECT_EQ(kernel.metrics.count("Memory Throughput"), 2u);
  EXPECT_EQ(kernel.Value("Memory Throughput", "%"), 71.5);
  EXPECT_EQ(kernel.Find("Memory Throughput", "%")->section, kSol);
  EXPECT_EQ(kernel.Value("Memory Throughput", "byte/second"), 3403052527254.71);
  EXPECT_EQ(kernel.Find("Memory Throughput", "byte/second")->section, kMwa);
  EXPECT_EQ(kernel.Find("Memory Throughput", "cycle"), nullptr);
}

TEST(NcuReport, ATruncatedLastRowIsSkippedAndTheRestKept) {
  const std::string full = std::string(kHeader) + Row("0", "a", "Duration", "ns", "100") +
                           Row("0", "a", "Elapsed Cycles", "cycle", "7,279");
  const std::string cut = full.substr(0, full.size() - 12);  // inside the quoted value
  const auto report = ParseNcuCsv(cut);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->skipped_lines, 1);
  EXPECT_EQ(report->kernels.at(0).Value("Duration"), 100);
  EXPECT_EQ(report->kernels.at(0).Find("Elapsed Cycles"), nullptr);
}

TEST(NcuReport, RowsWiderThanTheHeaderAreSkipped) {
  const std::string row = Row("0", "a", "Duration", "ns", "100");
  const std::string text = std::string(kHeader) + row.substr(0, row.size() - 1) + ",\"extra\"\n" +
                           Row("0", "a", "Elapsed Cycles", "cycle", "5");
  const auto report = ParseNcuCsv(text);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->skipped_lines, 1);
  EXPECT_EQ(report->kernels.at(0).Find("Duration"), nullptr);
}

TEST(NcuReport, CounterPermissionErrorSaysHowToAllowCounters) {
  const auto report = ParseNcuCsv(
      "==PROF== Connected to process 42 (/usr/bin/python3)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
      "Performance Counters on the target device 0.\n"
      "==PROF== Disconnected from process 42\n");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(report.error().message,
            "ncu printed no CSV: GPU performance counters are not permitted (ERR_NVGPUCTRPERM)");
  EXPECT_NE(report.error().hint.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
}

TEST(NcuReport, AnEmptyReportIsAnErrorThatAsksWhy) {
  for (const std::string text : {std::string(""), std::string("==PROF== Disconnected\n")}) {
    const auto report = ParseNcuCsv(text);
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.error().message, "ncu printed no CSV");
    EXPECT_NE(report.error().hint.find("filtered out"), std::string::npos);
    EXPECT_NE(report.error().hint.find("ERR_NVGPUCTRPERM"), std::string::npos);
  }
  const auto header_only = ParseNcuCsv(kHeader);
  ASSERT_FALSE(header_only.ok());
  EXPECT_EQ(header_only.error().message, "ncu printed a CSV header but no kernel rows");
}

TEST(NcuReport, RejectsInputBeyondItsBounds) {
  std::string rows(kHeader);
  for (size_t i = 0; i <= kMaxNcuCsvRows; ++i) rows += "x\n";
  const auto many = ParseNcuCsv(rows);
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().message, "ncu output has more than 100000 rows");

  const std::string huge(kMaxNcuCsvBytes + 1, '\n');
  const auto large = ParseNcuCsv(huge);
  ASSERT_FALSE(large.ok());
  EXPECT_EQ(large.error().message, "ncu output is 67108865 bytes; at most 67108864 are read");
}

TEST(NcuReport, NumbersDropThousandsSeparators) {
  EXPECT_EQ(ParseNcuNumber("7,279"), 7279);
  EXPECT_EQ(ParseNcuNumber("1,958,782,327.59"), 1958782327.59);
  EXPECT_EQ(ParseNcuNumber("-3.5"), -3.5);
  EXPECT_FALSE(ParseNcuNumber("n/a"));
  EXPECT_FALSE(ParseNcuNumber(""));
  EXPECT_FALSE(ParseNcuNumber("12 %"));
}

}  // namespace
}  // namespace kb
