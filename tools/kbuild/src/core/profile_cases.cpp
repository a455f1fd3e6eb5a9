#include "core/profile_cases.h"

#include <algorithm>
#include <sstream>

#include "core/process_outcome.h"
#include "core/suggest.h"

namespace kb {

namespace {

// Google Benchmark appends run settings to each name: "/iterations:1", "/manual_time", ...
bool IsRunSetting(std::string_view part) {
  for (const std::string_view prefix :
       {"iterations:", "repeats:", "threads:", "min_time:", "min_warmup_time:"}) {
    if (part.starts_with(prefix)) return true;
  }
  return part == "manual_time" || part == "real_time" || part == "process_time";
}

}  // namespace

std::vector<std::string> ParseBenchmarkList(std::string_view output) {
  std::vector<std::string> names;
  std::istringstream in{std::string(output)};
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Benchmark names hold a '/'; anything else is a message from a static initializer.
    if (line.empty() || line[0] == ' ' || line.find('/') == std::string::npos) continue;
    for (size_t slash = line.rfind('/'); slash != std::string::npos; slash = line.rfind('/')) {
      if (!IsRunSetting(std::string_view(line).substr(slash + 1))) break;
      line.resize(slash);
    }
    if (std::find(names.begin(), names.end(), line) == names.end()) names.push_back(line);
  }
  return names;
}

Expected<std::vector<std::string>> ListBenchmarkCases(
    ProcessRunner& runner, const std::filesystem::path& binary,
    const std::map<std::string, std::string>& env) {
  RunOptions run;
  run.env = env;
  run.timeout_seconds = 120;
  const ProcessResult r = runner.Run({binary.string(), "--benchmark_list_tests=true"}, run);
  if (r.not_found || r.exit_code != 0) {
    Error e = MakeError(ExitCode::kBuildError,
                        "the benchmark binary " + binary.string() + " cannot list its cases" +
                            (r.timed_out ? " (timed out after 120 s)" : ""),
                        "rebuild with kbuild bench; if it still fails, run the binary with "
                        "--benchmark_list_tests=true to see why");
    e.detail = OutputTail(r.output, 8);
    return e;
  }
  auto names = ParseBenchmarkList(r.output);
  if (names.empty()) {
    return MakeError(ExitCode::kUsage, "the benchmark binary lists no cases",
                     "add a BenchSpec with cases to benchmarks/*.cpp (see the templates)");
  }
  return names;
}

bool IsPerformanceCase(const std::string& name) {
  for (const std::string_view flag : {" correctness_only", " expects_rejection"}) {
    if (name.find(flag) != std::string::npos) return false;
  }
  return true;
}

Expected<CaseChoice> ChooseCase(const std::vector<std::string>& cases,
                                const std::optional<std::string>& requested) {
  if (!requested) {
    for (const std::string& name : cases) {
      if (IsPerformanceCase(name)) return CaseChoice{name, "first performance case"};
    }
    return MakeError(ExitCode::kUsage, "the project has no performance case to profile",
                     "every benchmark case is correctness-only; name one with --case, or add a "
                     "timed case to benchmarks/*.cpp");
  }
  if (std::find(cases.begin(), cases.end(), *requested) != cases.end()) {
    return CaseChoice{*requested, "--case"};
  }
  // A bare case name, when exactly one benchmark has it.
  std::vector<std::string> matches;
  for (const std::string& name : cases) {
    const size_t slash = name.find('/');
    if (slash != std::string::npos && name.substr(slash + 1) == *requested) matches.push_back(name);
  }
  if (matches.size() == 1) return CaseChoice{matches.front(), "--case"};
  if (matches.size() > 1) {
    return MakeError(ExitCode::kUsage, "--case '" + *requested + "' is in several benchmarks",
                     "name one: '" + matches[0] + "' or '" + matches[1] + "'");
  }
  Error e = MakeError(ExitCode::kUsage, "unknown case '" + *requested + "'",
                      SuggestionHint(*requested, cases));
  e.hint += "; kbuild profile --list prints every case";
  return e;
}

std::string CaseFilterRegex(const std::string& name) {
  std::string regex = "^";
  for (const char ch : name) {
    if (std::string_view("\\^$.|?*+()[]{}").find(ch) != std::string_view::npos) regex += '\\';
    regex += ch;
  }
  return regex + "(/|$)";
}

std::string CaseFileStem(const std::string& name) {
  std::string stem;
  for (const char ch : name) {
    const bool safe = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
    stem += safe ? ch : '_';
  }
  if (stem.empty() || stem[0] == '.') stem.insert(stem.begin(), '_');
  return stem.substr(0, 120);
}

}  // namespace kb
