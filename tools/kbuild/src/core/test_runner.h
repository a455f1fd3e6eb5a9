// Runs a kernel project's GoogleTest binary the way kbuild test does: list
// its tests (--gtest_list_tests), then run EACH test in its own process with
// a timeout, so a CUDA error (which poisons the context), a crash or a hang
// fails that test only and kbuild itself never hangs. Every process appends
// its case records to one JSON-lines file (KBUILD_TEST_JSON); kbuild reads
// what each process added and adds rows for crashes, hangs and sanitizer
// findings.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"
#include "core/sanitizer_output.h"
#include "core/test_results.h"

namespace kb {

struct TestRunOptions {
  std::filesystem::path binary;          // build/cmake/kbuild_tests
  std::filesystem::path json_file;       // build/test-results/test-<timestamp>.jsonl
  std::filesystem::path log;             // build/logs/test.log (all output)
  std::optional<std::string> filter;     // GoogleTest pattern (--gtest_filter)
  std::optional<std::string> sanitizer;  // memcheck, racecheck, synccheck, initcheck
  double timeout_seconds = 300;          // per test
  std::map<std::string, std::string> env;
  std::filesystem::path project_library;  // KBUILD_PROJECT_LIBRARY for the harness
  std::function<void(const std::string&)> progress;  // one line per test; may be empty
};

struct TestRunResult {
  std::vector<TestCaseResult> cases;
  int tests = 0;      // processes run
  int bad_lines = 0;  // JSON lines that were not test records
};

// "Suite.\n  Name\n  Param/0  # GetParam() = 3\n" -> {"Suite.Name", "Suite.Param/0"}.
std::vector<std::string> ParseGTestList(const std::string& output);

// Exit 3 when the binary cannot list its tests (a broken build); exit 2
// when --filter matches nothing.
Expected<std::vector<std::string>> ListTests(ProcessRunner& runner, const TestRunOptions& options);

// The rows for one test process: its records, plus a failed row when it
// timed out, died of a signal, had sanitizer errors, or exited non-zero
// without a failed record; a passed row when it passed without records.
std::vector<TestCaseResult> CasesForProcess(const std::string& gtest, const ProcessResult& process,
                                            ParsedTestLines records,
                                            const std::optional<SanitizerFindings>& findings,
                                            double timeout_seconds);

// The argv for one test: the binary with --gtest_filter=<gtest>, under
// compute-sanitizer when asked.
std::vector<std::string> TestCommand(const TestRunOptions& options, const std::string& gtest);

// Exit 4 when compute-sanitizer is needed and missing.
Expected<TestRunResult> RunTests(FileSystem& fs, ProcessRunner& runner,
                                 const TestRunOptions& options);

}  // namespace kb
