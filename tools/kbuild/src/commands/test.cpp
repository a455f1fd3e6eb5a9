// kbuild test: build the project's harness tests (tests/*.cpp), run each
// GoogleTest test in its own process with a timeout, print one row per case
// and `N passed, M failed`.
#include <chrono>
#include <memory>
#include <optional>

#include "commands/command.h"
#include "commands/harness_flags.h"
#include "core/macro_defines.h"
#include "core/report.h"
#include "core/test_runner.h"

namespace kb {

namespace {

struct TestFlags {
  std::string filter;
  std::string sanitize;
  double timeout = 300;  // a 2^31-element case takes ~100 s on the H200 (2026-12-01)
  HarnessBuildFlags build;
};

int RunTestCommand(const GlobalOptions& global, const TestFlags& flags) {
  const auto start = std::chrono::steady_clock::now();
  Report report("test", flags.build.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  auto built = BuildHarness(
      fs, runner, MakeHarnessBuildOptions(global, flags.build, HarnessKind::kTests, report));
  if (!built) return report.Fail(built.error());
  if (flags.build.build_only) return FinishBuildOnly(report, *built, start);
  for (const auto& warning : built->warnings) report.Warning(warning);
  const HarnessTarget& target = built->target;

  TestRunOptions options;
  options.binary = target.binary;
  options.json_file = target.results / ("test-" + FileTimestamp() + ".jsonl");
  options.log = target.log;
  options.project_library = target.project_library;
  if (!flags.filter.empty()) options.filter = flags.filter;
  if (!flags.sanitize.empty()) options.sanitizer = flags.sanitize;
  options.timeout_seconds = flags.timeout;
  options.progress = [&report](const std::string& line) { report.Progress(line); };
  auto run = RunTests(fs, runner, options);
  if (!run) return report.Fail(run.error());
  if (run->bad_lines > 0) {
    report.Warning(std::to_string(run->bad_lines) + " line(s) of " + options.json_file.string() +
                   " were not test records (something else wrote to KBUILD_TEST_JSON)");
  }

  const TestSummary summary = Summarize(run->cases, run->tests);
  const std::string log = options.log.lexically_relative(built->prepared.paths.project).string();
  // A knob's build passing is not the default's: the line and the JSON name its defines.
  const std::vector<std::string> defines = DefineArgs(built->prepared.plan.defines);
  const std::string built_with = DefineFlagsText(defines);
  report.Line(RenderTestTable(run->cases));
  report.Line(SummaryLine(summary) + " (" + std::to_string(summary.tests) + " test" +
              (summary.tests == 1 ? "" : "s") + " on " + built->gpu.gpu.name +
              (built_with.empty() ? "" : ", built with " + built_with) + ")");
  report.Line("log: " + log);
  auto& data = report.data();
  data["cases"] = nlohmann::json::array();
  for (const auto& c : run->cases) data["cases"].push_back(TestCaseToJson(c));
  data["summary"] = {{"passed", summary.passed},
                     {"failed", summary.failed},
                     {"skipped", summary.skipped},
                     {"tests", summary.tests},
                     {"line", SummaryLine(summary)}};
  data["gpu"] = built->gpu.gpu.name;
  data["defines"] = defines;
  data["sanitizer"] =
      flags.sanitize.empty() ? nlohmann::json(nullptr) : nlohmann::json(flags.sanitize);
  data["log"] = options.log.string();
  data["records"] = options.json_file.string();
  return report.Finish(TestExitCode(summary));
}

}  // namespace

void AddTestCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "test",
      "Build the harness tests (tests/*.cpp) and run each GoogleTest test in its own process "
      "on the GPU: one row per case (max abs / rel L2 error vs a float64 reference, tolerance, "
      "seed), then 'N passed, M failed' (', K skipped' when a test called GTEST_SKIP).");
  auto flags = std::make_shared<TestFlags>();
  sub->add_option("--filter", flags->filter,
                  "Run only the tests matching this GoogleTest pattern (e.g. 'RmsNorm.*', "
                  "'*Bf16*', 'A.*-A.Slow')");
  sub->add_option("--sanitize", flags->sanitize,
                  "Run each test under compute-sanitizer with this tool and report its findings")
      ->check(CLI::IsMember(
          std::vector<std::string>(std::begin(kSanitizerTools), std::end(kSanitizerTools))));
  sub->add_option("--timeout", flags->timeout,
                  "Seconds one test may run before it is killed and fails (default: 300)")
      ->check(kPositiveNumber);
  AddHarnessBuildFlags(*sub, flags->build, BuildOnlyFlag::kYes);
  sub->footer(
      "Output: a table per case, the summary line, build/logs/test.log (all test output) and "
      "build/test-results/test-<timestamp>.jsonl (the harness records).\n" +
      HarnessCompileNote("tests/*.cpp") +
      "Environment: KBUILD_SEED changes the base seed of the random inputs.\n"
      "Exit codes: 0 all passed, 1 a case failed (incl. crash, timeout, sanitizer errors), "
      "2 bad build.toml or no tests, 3 compile/link error, 4 no GPU (checked after compiling, "
      "so compile errors show on any machine), no nvcc or no torch, 6 another kbuild is "
      "building this project, 130/143 stopped by Ctrl-C/SIGTERM.\n" +
      std::string(kBuildOnlyExitCodes));
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunTestCommand(global, *flags); };
  });
}

}  // namespace kb
