#include "core/test_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <sstream>

#include "core/process_outcome.h"

namespace kb {

namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

TestCaseResult ProcessRow(const std::string& gtest, bool passed, std::string reason,
                          std::string message) {
  TestCaseResult r;
  r.gtest = gtest;
  r.test = gtest;
  r.case_name = "-";
  r.passed = passed;
  r.reason = std::move(reason);
  r.message = std::move(message);
  return r;
}

// GoogleTest prints "[  SKIPPED ] Suite.Test" for a GTEST_SKIP.
bool SkippedBy(const std::string& output, const std::string& gtest) {
  return output.find("[  SKIPPED ] " + gtest) != std::string::npos;
}

// GoogleTest prints the skip message as "<file>:<line>: Skipped" then the message lines, before
// the "[  SKIPPED ]" line; "" when there is none.
std::string SkipReason(const std::string& output) {
  const size_t at = output.find(": Skipped\n");
  if (at == std::string::npos) return "";
  const size_t begin = at + 10;
  const size_t end = output.find("\n[", begin);
  std::string reason =
      output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
  return Trim(reason);
}

}  // namespace

std::vector<std::string> ParseGTestList(const std::string& output) {
  std::vector<std::string> tests;
  std::string suite;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const std::string without_comment = line.substr(0, line.find('#'));
    const std::string name = Trim(without_comment);
    if (name.empty()) continue;
    if (line[0] != ' ') {
      // Suite lines end with '.'; anything else (a warning printed by a
      // static initializer) is not part of the list.
      suite = name.back() == '.' ? name : "";
    } else if (!suite.empty()) {
      tests.push_back(suite + name);
    }
  }
  return tests;
}

Expected<std::vector<std::string>> ListTests(ProcessRunner& runner, const TestRunOptions& o) {
  std::vector<std::string> argv = {o.binary.string(), "--gtest_list_tests"};
  if (o.filter) argv.push_back("--gtest_filter=" + *o.filter);
  RunOptions run;
  run.env = o.env;
  run.timeout_seconds = 60;
  const ProcessResult r = runner.Run(argv, run);
  if (r.not_found || r.exit_code != 0) {
    Error e = MakeError(ExitCode::kBuildError,
                        "the test binary " + o.binary.string() + " cannot list its tests" +
                            (r.timed_out ? " (timed out after 60 s)" : ""),
                        "rebuild with kbuild test (it builds the kbuild_tests target); if it "
                        "still fails, a static initializer in tests/*.cpp throws: run the "
                        "binary with --gtest_list_tests to see it");
    e.detail = OutputTail(r.output, 10);
    return e;
  }
  auto tests = ParseGTestList(r.output);
  if (tests.empty()) {
    if (o.filter) {
      return MakeError(ExitCode::kUsage, "no test matches --filter '" + *o.filter + "'",
                       "patterns are GoogleTest's: 'Suite.*', '*Bf16*', 'A.*:B.*', "
                       "'*-*Slow*'; run without --filter to see every test");
    }
    return MakeError(ExitCode::kUsage, "the test binary holds no tests",
                     "add TEST(...) or KB_OP_TEST(...) to tests/*.cpp");
  }
  return tests;
}

std::vector<TestCaseResult> CasesForProcess(const std::string& gtest, const ProcessResult& p,
                                            ParsedTestLines records,
                                            const std::optional<SanitizerFindings>& findings,
                                            double timeout_seconds) {
  std::vector<TestCaseResult> cases = std::move(records.cases);
  bool any_failed = false;
  for (const auto& c : cases) any_failed = any_failed || !c.passed;
  const std::string lost =
      records.truncated_last ? " (the record of the case in flight was cut off)" : "";
  if (p.timed_out) {
    cases.push_back(ProcessRow(
        gtest, false, "timeout",
        AbnormalEnd(p, timeout_seconds) + lost + ": killed\n" + OutputTail(p.output, 5) +
            "hint: a kernel that never finishes (a loop bound, or a barrier not reached by every "
            "thread), or a test too big for the limit: raise it with --timeout"));
  } else if (p.exit_code > 128) {
    cases.push_back(ProcessRow(
        gtest, false, "crash",
        AbnormalEnd(p, timeout_seconds) + lost + "\n" + OutputTail(p.output, 8) +
            "hint: rerun this test alone under compute-sanitizer: kbuild test --filter '" + gtest +
            "' --sanitize memcheck"));
  } else if (findings && findings->errors > 0) {
    cases.push_back(
        ProcessRow(gtest, false, "sanitizer",
                   fmt::format("compute-sanitizer found {} error{}\n{}", findings->errors,
                               findings->errors == 1 ? "" : "s", findings->first_error)));
  } else if (p.exit_code != 0 && !any_failed) {
    cases.push_back(ProcessRow(
        gtest, false, "exit_code",
        "exited with code " + std::to_string(p.exit_code) + lost + "\n" + OutputTail(p.output, 8) +
            "hint: a GoogleTest assertion outside the harness failed, or the test threw; the "
            "full output is in the log"));
  } else if (cases.empty() && p.exit_code == 0 && SkippedBy(p.output, gtest)) {
    TestCaseResult skipped = ProcessRow(gtest, true, "", SkipReason(p.output));
    skipped.skipped = true;
    cases.push_back(skipped);
  } else if (cases.empty()) {
    cases.push_back(ProcessRow(gtest, p.exit_code == 0, "", ""));
  } else if (p.exit_code == 0) {
    // The test asserted these failures (ExpectOpFails): its verdict wins.
    for (auto& c : cases) {
      c.expected_failure = !c.passed;
      c.passed = true;
    }
  }
  return cases;
}

std::vector<std::string> TestCommand(const TestRunOptions& o, const std::string& gtest) {
  std::vector<std::string> argv;
  if (o.sanitizer) {
    argv = {"compute-sanitizer", "--tool", *o.sanitizer, "--error-exitcode",
            std::to_string(kSanitizerErrorExit)};
  }
  argv.push_back(o.binary.string());
  argv.push_back("--gtest_filter=" + gtest);
  argv.push_back("--gtest_color=no");
  return argv;
}

Expected<TestRunResult> RunTests(FileSystem& fs, ProcessRunner& runner, const TestRunOptions& o) {
  auto tests = ListTests(runner, o);
  if (!tests) return tests.error();
  if (Status s = fs.Write(o.json_file, ""); !s) return s.error();
  if (Status s = fs.Write(o.log, ""); !s) return s.error();

  TestRunResult result;
  size_t seen = 0;  // bytes of the JSON file already attributed to earlier tests
  for (const std::string& gtest : *tests) {
    RunOptions run;
    run.env = o.env;
    run.env["KBUILD_TEST_JSON"] = o.json_file.string();
    if (!o.project_library.empty()) run.env["KBUILD_PROJECT_LIBRARY"] = o.project_library.string();
    run.log = o.log;
    run.timeout_seconds = o.timeout_seconds;
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult p = runner.Run(TestCommand(o, gtest), run);
    if (p.log_error) return *p.log_error;
    if (p.not_found) {
      return o.sanitizer ? MakeError(ExitCode::kEnvironment, "compute-sanitizer not found on PATH",
                                     "it ships with the CUDA Toolkit: add $CUDA_HOME/bin to PATH")
                         : MakeError(ExitCode::kBuildError, "cannot run " + o.binary.string(),
                                     "rebuild with kbuild test");
    }
    auto text = fs.ReadAtMost(o.json_file, kMaxResultsBytes);
    const std::string all = text ? *text : "";
    const std::string added = all.size() > seen ? all.substr(seen) : "";
    seen = all.size();
    ParsedTestLines parsed = ParseTestJsonLines(added, gtest);
    result.bad_lines += parsed.bad_lines;
    const auto findings =
        o.sanitizer ? ParseSanitizerOutput(p.output) : std::optional<SanitizerFindings>();
    auto cases = CasesForProcess(gtest, p, std::move(parsed), findings, o.timeout_seconds);
    int failed = 0;
    for (const auto& c : cases) failed += !c.passed;
    if (o.progress) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      o.progress(fmt::format("[{}/{}] {} {} ({:.1f} s)", result.tests + 1, tests->size(), gtest,
                             failed ? "FAILED" : "ok", s));
    }
    result.cases.insert(result.cases.end(), cases.begin(), cases.end());
    ++result.tests;
  }
  return result;
}

}  // namespace kb
