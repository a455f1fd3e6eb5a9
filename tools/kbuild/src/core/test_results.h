// Results of kbuild test: the harness's JSON lines (docs/harness.md, "Test
// JSON") parsed into one row per case, plus rows kbuild adds for a test
// process that crashed, hung, exited non-zero or had sanitizer findings;
// the human table, the `N passed, M failed` line and the --json form.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "kbuild/harness/provenance.h"

namespace kb {

struct TestCaseResult {
  std::string gtest;      // GoogleTest name of the process it ran in: "RmsNorm.NoWeight"
  std::string test;       // the harness spec's name ("rms_norm weight=none")
  std::string case_name;  // "7x33 bf16 offset_view"; "-" for a whole-process row
  std::string shape;      // "7x33"
  std::string dtype;
  bool passed = false;
  // The harness failed this case and the GoogleTest test passed: the test
  // expects the failure (a deliberately wrong op, ExpectOpFails). Counts as passed.
  bool expected_failure = false;
  // GoogleTest skipped the test (GTEST_SKIP: e.g. a check that needs an opt-in); the reason is
  // in `message`. Counts as neither passed nor failed.
  bool skipped = false;
  // Harness reason (mismatch, unwritten, ...) or kbuild's own: timeout,
  // crash, exit_code, sanitizer. Empty on pass.
  std::string reason;
  std::string message;  // what failed, where, and a hint
  std::optional<double> max_abs_error, rel_l2_error, atol, rtol;
  std::optional<unsigned long long> seed;
  harness::Provenance provenance;  // kernels the op call launched (the launches column)
};

struct ParsedTestLines {
  std::vector<TestCaseResult> cases;
  int bad_lines = 0;            // complete lines that were not a test record
  bool truncated_last = false;  // last line cut off (the process died mid-write)
};

// `text` is what one test process appended to KBUILD_TEST_JSON.
ParsedTestLines ParseTestJsonLines(const std::string& text, const std::string& gtest);

struct TestSummary {
  int passed = 0;
  int failed = 0;
  int skipped = 0;
  int tests = 0;  // GoogleTest tests (processes) run
};

TestSummary Summarize(const std::vector<TestCaseResult>& cases, int tests);

// 0 when every case passed, 1 (kCheckFailed) otherwise.
ExitCode TestExitCode(const TestSummary& summary);

// "12 passed, 1 failed" - CI log readers grep for this exact phrase.
std::string SummaryLine(const TestSummary& summary);

// Table columns: test, case, shape, dtype, max abs err, rel L2 err,
// tolerance, launches, verdict, seed; then each failure's message below it.
std::string RenderTestTable(const std::vector<TestCaseResult>& cases);

nlohmann::json TestCaseToJson(const TestCaseResult& result);

}  // namespace kb
