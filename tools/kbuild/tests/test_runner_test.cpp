#include "core/test_runner.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "core/file_write.h"
#include "core/test_results.h"

namespace kb {
namespace {

constexpr const char* kList =
    "Running main() from gtest_main.cc\n"
    "ScaleAdd.\n"
    "  AllDtypes\n"
    "  Rejects\n"
    "Sizes/Param.  # TypeParam = float\n"
    "  Odd/0  # GetParam() = 3\n";

const char* kRecord =
    R"({"schema": "kbuild-harness-test/1", "test": "scale_add", "case": "7 bf16", "shape": [7], )"
    R"("dtype": "bf16", "verdict": "pass", "reason": "", "seed": 1, "max_abs_error": 0.001, )"
    R"("rel_l2_error": 0.001, "atol": 0.01, "rtol": 0.016})";

TestRunOptions Options() {
  TestRunOptions o;
  o.binary = "/p/build/cmake/kbuild_tests";
  o.json_file = "/p/build/test-results/t.jsonl";
  o.log = "/p/build/logs/test.log";
  return o;
}

TEST(TestRunner, ParsesTheGoogleTestList) {
  EXPECT_EQ(
      ParseGTestList(kList),
      (std::vector<std::string>{"ScaleAdd.AllDtypes", "ScaleAdd.Rejects", "Sizes/Param.Odd/0"}));
}

TEST(TestRunner, RunsEachTestAloneAndUnderTheSanitizerWhenAsked) {
  TestRunOptions o = Options();
  EXPECT_EQ(
      TestCommand(o, "A.b"),
      (std::vector<std::string>{o.binary.string(), "--gtest_filter=A.b", "--gtest_color=no"}));
  o.sanitizer = "memcheck";
  EXPECT_EQ(
      TestCommand(o, "A.b"),
      (std::vector<std::string>{"compute-sanitizer", "--tool", "memcheck", "--error-exitcode", "99",
                                o.binary.string(), "--gtest_filter=A.b", "--gtest_color=no"}));
}

// A hung test is killed and fails; the others still run and report.
TEST(TestRunner, HungTestIsKilledAndReportedAsAFailure) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([&fs](const std::vector<std::string>& argv, const RunOptions& run) {
    ProcessResult r;
    r.exit_code = 0;
    if (argv[1] == "--gtest_list_tests") {
      r.output = "ScaleAdd.\n  Fast\n  Hangs\n";
    } else if (argv[1] == "--gtest_filter=ScaleAdd.Fast") {
      const std::string file = run.env.at("KBUILD_TEST_JSON");
      (void)fs.Write(file, *fs.Read(file) + kRecord + "\n");
    } else {
      EXPECT_DOUBLE_EQ(run.timeout_seconds, 300);  // the default
      r.timed_out = true;
      r.exit_code = 124;
      r.output = "[ RUN      ] ScaleAdd.Hangs\n";
    }
    return r;
  });
  auto result = RunTests(fs, runner, Options());
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->tests, 2);
  ASSERT_EQ(result->cases.size(), 2u);
  EXPECT_TRUE(result->cases[0].passed);
  EXPECT_EQ(result->cases[0].gtest, "ScaleAdd.Fast");
  const TestCaseResult& hung = result->cases[1];
  EXPECT_FALSE(hung.passed);
  EXPECT_EQ(hung.reason, "timeout");
  EXPECT_EQ(hung.message,
            "timed out after 300 s: killed\n"
            "[ RUN      ] ScaleAdd.Hangs\n"
            "hint: a kernel that never finishes (a loop bound, or a barrier not reached by every "
            "thread), or a test too big for the limit: raise it with --timeout");
  EXPECT_EQ(SummaryLine(Summarize(result->cases, result->tests)), "1 passed, 1 failed");
}

TEST(TestRunner, CrashNamesTheSignalAndTheCudaError) {
  ProcessResult p;
  p.exit_code = 128 + 11;
  p.output =
      "[ RUN ] A.b\nCUDA error: an illegal memory access was encountered\nframe 1\nframe 2\n";
  ParsedTestLines records;
  records.truncated_last = true;
  const auto cases = CasesForProcess("A.b", p, records, std::nullopt, 120);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].reason, "crash");
  EXPECT_EQ(cases[0].message,
            "crashed with SIGSEGV (the record of the case in flight was cut off)\n"
            "[ RUN ] A.b\n"
            "CUDA error: an illegal memory access was encountered\n"
            "frame 1\n"
            "frame 2\n"
            "hint: rerun this test alone under compute-sanitizer: kbuild test --filter 'A.b' "
            "--sanitize memcheck");
}

TEST(TestRunner, NonZeroExitWithoutAFailedRecordAddsARow) {
  ProcessResult p;
  p.exit_code = 1;
  ParsedTestLines records = ParseTestJsonLines(std::string(kRecord) + "\n", "A.b");
  const auto cases = CasesForProcess("A.b", p, records, std::nullopt, 120);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_TRUE(cases[0].passed);
  EXPECT_EQ(cases[1].reason, "exit_code");
}

// bad-kernel tests pass when the harness fails the op: the test's verdict wins.
TEST(TestRunner, FailedRecordsInAPassingTestAreExpectedFailures) {
  ProcessResult p;
  p.exit_code = 0;
  ParsedTestLines records = ParseTestJsonLines(
      R"({"schema": "kbuild-harness-test/1", "test": "skips_last", "case": "7 fp32", )"
      R"("verdict": "fail", "reason": "unwritten"})"
      "\n",
      "Bad.SkipsLast");
  const auto cases = CasesForProcess("Bad.SkipsLast", p, records, std::nullopt, 120);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_TRUE(cases[0].passed);
  EXPECT_TRUE(cases[0].expected_failure);
  EXPECT_EQ(TestCaseToJson(cases[0])["verdict"], "expected_fail");
  EXPECT_EQ(SummaryLine(Summarize(cases, 1)), "1 passed, 0 failed");
}

TEST(TestRunner, PlainGoogleTestWithoutRecordsIsOneRow) {
  ProcessResult p;
  p.exit_code = 0;
  const auto cases = CasesForProcess("A.b", p, {}, std::nullopt, 120);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_TRUE(cases[0].passed);
}

// GTEST_SKIP is reported as skipped with its reason, never as a pass.
TEST(TestRunner, SkippedTestIsCountedAsSkippedWithItsReason) {
  ProcessResult p;
  p.exit_code = 0;
  p.output =
      "[ RUN      ] Isolation.Hang\n"
      "tests/isolation_test.cpp:40: Skipped\n"
      "set KBUILD_SELFTEST_ISOLATION=1 to run the hanging kernel\n"
      "\n"
      "[  SKIPPED ] Isolation.Hang (0 ms)\n";
  const auto cases = CasesForProcess("Isolation.Hang", p, {}, std::nullopt, 120);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_TRUE(cases[0].skipped);
  EXPECT_EQ(cases[0].message, "set KBUILD_SELFTEST_ISOLATION=1 to run the hanging kernel");
  const TestSummary summary = Summarize(cases, 1);
  EXPECT_EQ(summary.passed, 0);
  EXPECT_EQ(summary.skipped, 1);
  EXPECT_EQ(SummaryLine(summary), "0 passed, 0 failed, 1 skipped");
  EXPECT_NE(RenderTestTable(cases).find("skipped"), std::string::npos);
}

TEST(TestRunner, SanitizerFindingsFailTheTest) {
  ProcessResult p;
  p.exit_code = 99;
  const auto cases =
      CasesForProcess("A.b", p, {}, SanitizerFindings{2, "Invalid __global__ read\n"}, 120);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].reason, "sanitizer");
  EXPECT_EQ(cases[0].message, "compute-sanitizer found 2 errors\nInvalid __global__ read\n");
}

TEST(TestRunner, FilterMatchingNothingIsBadUsage) {
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    EXPECT_EQ(argv.back(), "--gtest_filter=Nope*");
    return ProcessResult{0, false, false, "Running main() from gtest_main.cc\n"};
  });
  TestRunOptions o = Options();
  o.filter = "Nope*";
  auto tests = ListTests(runner, o);
  ASSERT_FALSE(tests.ok());
  EXPECT_EQ(tests.error().code, ExitCode::kUsage);
  EXPECT_EQ(tests.error().message, "no test matches --filter 'Nope*'");
}

TEST(TestRunner, BinaryThatCannotListIsABuildError) {
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions&) {
    return ProcessResult{127, false, false, "error while loading shared libraries: libc10.so\n"};
  });
  auto tests = ListTests(runner, Options());
  ASSERT_FALSE(tests.ok());
  EXPECT_EQ(tests.error().code, ExitCode::kBuildError);
  EXPECT_EQ(tests.error().detail, "error while loading shared libraries: libc10.so\n");
}

// The test passed, but its log hit a full disk: exit 4 naming the log, not a pass.
TEST(TestRunner, LogOnAFullDiskIsAnEnvironmentErrorNamingTheLog) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions& run) {
    ProcessResult r{0, false, false, "A.\n  b\n"};
    if (argv[1] != "--gtest_list_tests") r.log_error = WriteFailure(*run.log, ENOSPC);
    return r;
  });
  auto result = RunTests(fs, runner, Options());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(result.error().Located(), "/p/build/logs/test.log: no space left on device");
}

TEST(TestRunner, MissingSanitizerIsAnEnvironmentError) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r{0, false, false, "A.\n  b\n"};
    if (argv[0] == "compute-sanitizer") r.not_found = true;
    return r;
  });
  TestRunOptions o = Options();
  o.sanitizer = "racecheck";
  auto result = RunTests(fs, runner, o);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(result.error().message, "compute-sanitizer not found on PATH");
}

}  // namespace
}  // namespace kb
