#include "core/test_results.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

const char* kPass =
    R"({"schema": "kbuild-harness-test/1", "test": "rms_norm", "op": "ns::rms_norm", )"
    R"("case": "7x33 bf16", "shape": [7, 33], "dtype": "bf16", "flags": [], "verdict": "pass", )"
    R"("reason": "", "message": "", "trials": 3, "seed": 20261133, "max_abs_error": 0.0039, )"
    R"("rel_l2_error": 0.0021, "atol": 0.01, "rtol": 0.016, "unwritten": 0, "first_unwritten": -1})";
const char* kFail =
    R"({"schema": "kbuild-harness-test/1", "test": "rms_norm", "case": "1x1 fp32", "shape": [1, 1], )"
    R"("dtype": "fp32", "verdict": "fail", "reason": "unwritten", "message": "out[0] unwritten\nhint: guard the tail", )"
    R"("seed": 7, "max_abs_error": 0, "rel_l2_error": 0, "atol": 1e-05, "rtol": 1e-05})";

TEST(TestResults, ParsesOneRecordPerLine) {
  const auto parsed = ParseTestJsonLines(std::string(kPass) + "\n" + kFail + "\n", "Rms.All");
  ASSERT_EQ(parsed.cases.size(), 2u);
  EXPECT_EQ(parsed.bad_lines, 0);
  EXPECT_FALSE(parsed.truncated_last);
  const auto& p = parsed.cases[0];
  EXPECT_EQ(p.gtest, "Rms.All");
  EXPECT_EQ(p.case_name, "7x33 bf16");
  EXPECT_EQ(p.shape, "7x33");
  EXPECT_TRUE(p.passed);
  EXPECT_EQ(*p.seed, 20261133u);
  EXPECT_DOUBLE_EQ(*p.rtol, 0.016);
  EXPECT_FALSE(parsed.cases[1].passed);
  EXPECT_EQ(parsed.cases[1].reason, "unwritten");
}

// A huge case the device has no memory for: neither passed nor failed.
TEST(TestResults, SkipVerdictIsASkippedCase) {
  const std::string skip =
      R"({"schema": "kbuild-harness-test/1", "test": "rms_norm", "case": "2097153x1024 bf16 huge", )"
      R"("verdict": "skip", "reason": "", "message": "this case needs about 94.5 GB"})";
  const auto parsed = ParseTestJsonLines(skip + "\n", "Rms.Huge");
  ASSERT_EQ(parsed.cases.size(), 1u);
  EXPECT_TRUE(parsed.cases[0].skipped);
  EXPECT_FALSE(parsed.cases[0].passed);
  EXPECT_EQ(parsed.cases[0].reason, "");
  EXPECT_EQ(Summarize(parsed.cases, 1).skipped, 1);
}

// A crash mid-write leaves a partial last line: keep the complete records.
TEST(TestResults, TruncatedLastLineAfterACrashIsNotAnError) {
  const std::string text = std::string(kPass) + "\n" + std::string(kFail).substr(0, 60);
  const auto parsed = ParseTestJsonLines(text, "Rms.All");
  ASSERT_EQ(parsed.cases.size(), 1u);
  EXPECT_TRUE(parsed.truncated_last);
  EXPECT_EQ(parsed.bad_lines, 0);
}

TEST(TestResults, CountsCompleteLinesThatAreNotRecords) {
  const auto parsed = ParseTestJsonLines("not json\n{\"schema\": \"other\"}\n\n", "T.x");
  EXPECT_TRUE(parsed.cases.empty());
  EXPECT_EQ(parsed.bad_lines, 2);
}

// The project's test binary writes these records: a key of the wrong type, or
// a record nested thousands of levels deep, is a line that is not a record,
// never an exception or a stack overflow.
TEST(TestResults, RecordsOfTheWrongShapeAreBadLinesNotCrashes) {
  const std::string wrong_types =
      R"({"schema": "kbuild-harness-test/1", "test": 1, "case": [], "verdict": {}, )"
      R"("reason": 2, "message": null, "dtype": false})";
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const std::string text = std::string("{\"schema\": 1}\n") + deep + "\n" + wrong_types + "\n";
  const auto parsed = ParseTestJsonLines(text, "T.x");
  EXPECT_EQ(parsed.bad_lines, 2);
  ASSERT_EQ(parsed.cases.size(), 1u);
  EXPECT_FALSE(parsed.cases[0].passed);
  EXPECT_EQ(parsed.cases[0].test, "");
  EXPECT_EQ(parsed.cases[0].reason, "fail");
}

TEST(TestResults, SummaryLineIsTheExactPhrase) {
  auto cases = ParseTestJsonLines(std::string(kPass) + "\n" + kFail + "\n" + kPass + "\n", "T.x");
  const TestSummary s = Summarize(cases.cases, 1);
  EXPECT_EQ(SummaryLine(s), "2 passed, 1 failed");
  EXPECT_EQ(TestExitCode(s), ExitCode::kCheckFailed);
  EXPECT_EQ(TestExitCode(Summarize({}, 0)), ExitCode::kOk);
}

TEST(TestResults, TableHasOneRowPerCaseAndTheFailureMessage) {
  auto cases = ParseTestJsonLines(std::string(kPass) + "\n" + kFail + "\n", "Rms.All").cases;
  EXPECT_EQ(RenderTestTable(cases),
            "test      case       shape  dtype  max abs err  rel L2 err  tolerance              "
            "launches  verdict           seed\n"
            "--------  ---------  -----  -----  -----------  ----------  ---------------------  "
            "--------  ----------------  --------\n"
            "rms_norm  7x33 bf16  7x33   bf16   0.0039       0.0021      atol 0.01 rtol 0.016   "
            "-         pass              20261133\n"
            "rms_norm  1x1 fp32   1x1    fp32   0            0           atol 1e-05 rtol 1e-05  "
            "-         FAIL (unwritten)  7\n"
            "\nFAIL rms_norm [1x1 fp32] (Rms.All):\n"
            "  out[0] unwritten\n"
            "  hint: guard the tail\n");
}

TEST(TestResults, LaunchesColumnAndJsonCarryTheRecordedProvenance) {
  const std::string line =
      R"({"schema": "kbuild-harness-test/1", "test": "rms_norm", "case": "7x33 fp32", )"
      R"("verdict": "fail", "reason": "no_project_kernel", "launches": 3, )"
      R"("project_launches": 1, "foreign_kernels": [{"name": "at::native::fill", )"
      R"("library": "libtorch_cuda.so"}, {"name": "gemm", "library": "libcublasLt.so.13"}]})";
  const auto cases = ParseTestJsonLines(line + "\n", "Rms.All").cases;
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].provenance.launches, 3);
  EXPECT_NE(RenderTestTable(cases).find("3 (2 foreign)  FAIL (no_project_kernel)"),
            std::string::npos)
      << RenderTestTable(cases);
  const auto j = TestCaseToJson(cases[0]);
  EXPECT_EQ(j["launches"], 3);
  EXPECT_EQ(j["project_launches"], 1);
  EXPECT_EQ(j["foreign_kernels"][1]["library"], "libcublasLt.so.13");
  EXPECT_TRUE(TestCaseToJson(TestCaseResult{})["launches"].is_null());
}

TEST(TestResults, JsonKeepsNumbersAndNullsForUnknowns) {
  TestCaseResult r;
  r.gtest = "A.b";
  r.test = "A.b";
  r.case_name = "-";
  r.reason = "timeout";
  const auto j = TestCaseToJson(r);
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_TRUE(j["max_abs_error"].is_null());
  EXPECT_TRUE(j["seed"].is_null());
}

}  // namespace
}  // namespace kb
