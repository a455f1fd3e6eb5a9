#include "core/tune_child.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <string_view>

#include "core/json_fields.h"
#include "core/message_text.h"

namespace kb {

namespace {

using Json = nlohmann::json;

constexpr int kEnvironmentExit = 4;

std::string FirstLine(const std::string& text) { return OneLine(text.substr(0, text.find('\n'))); }

Json ParseOrNull(std::string_view text) {
  Json doc = ParseUntrustedJson<Json>(text);
  return doc.is_discarded() || !doc.is_object() ? Json() : doc;
}

// The last few output lines, for a child that died without a document.
std::string OutputTail(const std::string& output) {
  std::string text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const size_t start = text.rfind('\n');
  return OneLine(start == std::string::npos ? text : text.substr(start + 1));
}

}  // namespace

std::vector<std::string> TuneChildArgv(const std::filesystem::path& exe,
                                       const std::filesystem::path& project,
                                       const std::string& command, const TuneVariant& variant,
                                       const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {exe.string(), "-C", project.string(), command};
  for (const auto& [name, value] : variant.values) {
    argv.push_back("--define");
    argv.push_back(name + "=" + value);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

Json ChildDocument(const std::string& output) {
  if (Json whole = ParseOrNull(output); !whole.is_null()) return whole;
  // kbuild pretty-prints its one document, so it starts on a line holding only "{".
  for (size_t at = output.rfind("\n{\n"); at != std::string::npos;
       at = at == 0 ? std::string::npos : output.rfind("\n{\n", at - 1)) {
    if (Json doc = ParseOrNull(std::string_view(output).substr(at + 1)); !doc.is_null()) {
      return doc;
    }
  }
  return Json();
}

std::string ChildErrorLine(const Json& document) {
  const Json error = ObjectAt(document, "error");
  const std::string message = StringOr(error, "message");
  if (message.empty()) return "";
  std::string where = StringOr(error, "path");
  const auto line = IntegerOr<long long>(error, "line");
  const auto column = IntegerOr<long long>(error, "column");
  if (!where.empty() && line > 0) where = fmt::format("{}:{}", where, line);
  if (!where.empty() && line > 0 && column > 0) where = fmt::format("{}:{}", where, column);
  return FirstLine(where.empty() ? message : where + ": " + message);
}

ChildResult ReadChildResult(const ProcessResult& result, const std::string& step) {
  ChildResult child;
  if (result.interrupted) {
    child.outcome = ChildOutcome::kStopped;
    return child;
  }
  child.document = ChildDocument(result.output);
  if (result.not_found) {
    child.reason = "kbuild " + step + " could not be started";
    return child;
  }
  if (result.timed_out) {
    child.reason = "kbuild " + step + " timed out";
    return child;
  }
  const int exit = result.exit_code;
  if (exit == 0) {
    child.outcome = ChildOutcome::kOk;
    return child;
  }
  if (exit == 130 || exit == 143) {
    child.outcome = ChildOutcome::kStopped;
    return child;
  }
  if (exit == kEnvironmentExit) child.outcome = ChildOutcome::kEnvironment;
  std::string reason = ChildErrorLine(child.document);
  if (reason.empty() && step == "test") reason = TestFailureReason(child.document);
  if (reason.empty() && step == "bench") reason = BenchFailureReason(child.document);
  if (reason.empty() && child.document.is_null()) {
    const std::string tail = OutputTail(result.output);
    reason = "kbuild " + step + " exited " + std::to_string(exit) + " without a JSON document" +
             (tail.empty() ? "" : ": " + tail);
  }
  child.reason = reason.empty() ? "kbuild " + step + " exited " + std::to_string(exit) : reason;
  return child;
}

std::string WorkerFailureReason(const ProcessResult& result, const ChildResult& child,
                                const std::string& command) {
  if (child.outcome == ChildOutcome::kStopped || result.timed_out || result.interrupted) return "";
  if (result.exit_code > 128) {
    return "kbuild " + command + " was killed by signal " + std::to_string(result.exit_code - 128);
  }
  if (child.outcome == ChildOutcome::kEnvironment && (command == "test" || command == "bench")) {
    return "kbuild " + command + " could not use the GPU: " + child.reason;
  }
  return "";
}

std::string TestFailureReason(const Json& test_document) {
  const Json summary = ObjectAt(test_document, "summary");
  const int failed = IntegerOr(summary, "failed");
  if (failed <= 0) return "";
  const long long total = static_cast<long long>(failed) + IntegerOr(summary, "passed");
  std::string reason = std::to_string(failed) + " of " + std::to_string(total) + " cases failed";
  for (const auto& c : ArrayAt(test_document, "cases")) {
    if (StringOr(c, "verdict") != "fail") continue;
    std::string what = StringOr(c, "test") + " [" + StringOr(c, "case") + "]";
    if (const std::string why = StringOr(c, "reason"); !why.empty()) what += ": " + why;
    return OneLine(reason + ", first: " + what);
  }
  return reason;
}

std::string BenchFailureReason(const Json& bench_document) {
  for (const auto& c : ArrayAt(ObjectAt(bench_document, "harness"), "cases")) {
    const Json problems = ArrayAt(c, "problems");
    const bool failed = !problems.empty() || StringOr(c, "verdict", "ok") != "ok";
    if (!failed) continue;
    const std::string name = StringOr(c, "benchmark") + "/" + StringOr(c, "case");
    const std::string problem = !problems.empty() && problems[0].is_string()
                                    ? problems[0].get<std::string>()
                                    : "marked " + StringOr(c, "verdict");
    return FirstLine(name + ": " + problem);
  }
  return FirstLine(StringOr(bench_document, "problem"));
}

int TestsPassed(const Json& test_document) {
  const double passed = NumberOr(ObjectAt(test_document, "summary"), "passed");
  return static_cast<int>(std::clamp<double>(passed, 0, INT_MAX));
}

std::vector<TuneCaseTime> PerformanceCases(const Json& bench_document) {
  std::vector<TuneCaseTime> cases;
  for (const auto& c : ArrayAt(ObjectAt(bench_document, "harness"), "cases")) {
    if (!c.is_object() || c.value("correctness_only", Json(false)) == true) continue;
    TuneCaseTime t;
    t.name = OneLine(StringOr(c, "benchmark") + "/" + StringOr(c, "case"));
    t.median_us = std::max(0.0, NumberOr(ObjectAt(c, "time_us"), "median"));
    t.percent_of_peak = std::max(0.0, NumberOr(c, "percent_of_peak"));
    t.bytes = std::max(0.0, NumberOr(c, "bytes"));
    if (t.median_us > 0) cases.push_back(t);
  }
  return cases;
}

int SpillBytesInLog(const std::string& log) {
  static constexpr std::string_view kMarker = " bytes spill stores";
  long long most = 0;
  for (size_t at = log.find(kMarker); at != std::string::npos; at = log.find(kMarker, at + 1)) {
    size_t start = at;
    while (start > 0 && at - start < 9 &&
           std::isdigit(static_cast<unsigned char>(log[start - 1]))) {
      --start;
    }
    if (start < at) most = std::max(most, std::stoll(log.substr(start, at - start)));
  }
  return static_cast<int>(most);
}

}  // namespace kb
