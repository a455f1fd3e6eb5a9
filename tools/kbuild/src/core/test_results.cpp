#include "core/test_results.h"

#include <fmt/format.h>

#include <sstream>

#include "core/json_fields.h"
#include "core/text_table.h"

namespace kb {

namespace {

std::optional<double> Number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string ShapeText(const nlohmann::json& shape) {
  if (!shape.is_array()) return "";
  std::string out;
  for (const auto& d : shape) {
    if (!out.empty()) out += "x";
    out += d.is_number_integer() ? std::to_string(d.get<long long>()) : "?";
  }
  return out;
}

std::optional<TestCaseResult> FromRecord(const nlohmann::json& j, const std::string& gtest) {
  if (!j.is_object() || StringOr(j, "schema") != "kbuild-harness-test/1") return std::nullopt;
  TestCaseResult r;
  r.gtest = gtest;
  r.test = StringOr(j, "test");
  r.case_name = StringOr(j, "case");
  r.shape = ShapeText(j.value("shape", nlohmann::json()));
  r.dtype = StringOr(j, "dtype");
  r.passed = StringOr(j, "verdict") == "pass";
  r.skipped = StringOr(j, "verdict") == "skip";  // a huge case without the device memory
  r.reason = StringOr(j, "reason");
  if (!r.passed && !r.skipped && r.reason.empty()) r.reason = "fail";
  r.message = StringOr(j, "message");
  r.max_abs_error = Number(j, "max_abs_error");
  r.rel_l2_error = Number(j, "rel_l2_error");
  r.atol = Number(j, "atol");
  r.rtol = Number(j, "rtol");
  if (j.contains("seed") && j["seed"].is_number_unsigned()) {
    r.seed = j["seed"].get<unsigned long long>();
  }
  r.provenance = harness::ProvenanceFromJson(j);
  return r;
}

std::string Sci(const std::optional<double>& v) {
  return v ? fmt::format("{:.2g}", *v) : std::string("-");
}

}  // namespace

ParsedTestLines ParseTestJsonLines(const std::string& text, const std::string& gtest) {
  ParsedTestLines out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool complete = end != std::string::npos;
    if (!complete) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto j = ParseUntrustedJson(line);
    if (auto r = j.is_discarded() ? std::nullopt : FromRecord(j, gtest)) {
      out.cases.push_back(*r);
    } else if (complete) {
      ++out.bad_lines;
    } else {
      out.truncated_last = true;
    }
  }
  return out;
}

TestSummary Summarize(const std::vector<TestCaseResult>& cases, int tests) {
  TestSummary s;
  s.tests = tests;
  for (const auto& c : cases) ++(c.skipped ? s.skipped : c.passed ? s.passed : s.failed);
  return s;
}

ExitCode TestExitCode(const TestSummary& summary) {
  return summary.failed > 0 ? ExitCode::kCheckFailed : ExitCode::kOk;
}

std::string SummaryLine(const TestSummary& summary) {
  std::string line =
      std::to_string(summary.passed) + " passed, " + std::to_string(summary.failed) + " failed";
  if (summary.skipped > 0) line += ", " + std::to_string(summary.skipped) + " skipped";
  return line;
}

std::string RenderTestTable(const std::vector<TestCaseResult>& cases) {
  std::vector<TableRow> rows;
  for (const auto& c : cases) {
    const std::string tolerance =
        c.atol && c.rtol ? "atol " + Sci(c.atol) + " rtol " + Sci(c.rtol) : "-";
    rows.push_back({c.test.empty() ? c.gtest : c.test, c.case_name.empty() ? "-" : c.case_name,
                    c.shape.empty() ? "-" : c.shape, c.dtype.empty() ? "-" : c.dtype,
                    Sci(c.max_abs_error), Sci(c.rel_l2_error), tolerance,
                    harness::LaunchesCell(c.provenance),
                    c.skipped            ? std::string("skipped")
                    : c.expected_failure ? "expected fail (" + c.reason + ")"
                    : c.passed           ? "pass"
                                         : "FAIL (" + c.reason + ")",
                    c.seed ? std::to_string(*c.seed) : "-"});
  }
  std::string out = RenderTable({"test", "case", "shape", "dtype", "max abs err", "rel L2 err",
                                 "tolerance", "launches", "verdict", "seed"},
                                rows);
  for (const auto& c : cases) {
    if (c.skipped && !c.message.empty()) {
      out += "\nskipped " + c.gtest + ": " + c.message + "\n";
      continue;
    }
    if (c.passed || c.message.empty()) continue;
    out += "\nFAIL " + (c.test.empty() ? c.gtest : c.test) + " [" + c.case_name + "] (" + c.gtest +
           "):\n";
    std::istringstream lines(c.message);
    for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
  }
  return out;
}

nlohmann::json TestCaseToJson(const TestCaseResult& r) {
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  nlohmann::json j = {{"gtest", r.gtest},
                      {"test", r.test},
                      {"case", r.case_name},
                      {"shape", r.shape},
                      {"dtype", r.dtype},
                      {"verdict", r.skipped            ? "skipped"
                                  : r.expected_failure ? "expected_fail"
                                  : r.passed           ? "pass"
                                                       : "fail"},
                      {"reason", r.reason},
                      {"message", r.message},
                      {"max_abs_error", opt(r.max_abs_error)},
                      {"rel_l2_error", opt(r.rel_l2_error)},
                      {"atol", opt(r.atol)},
                      {"rtol", opt(r.rtol)},
                      {"seed", r.seed ? nlohmann::json(*r.seed) : nlohmann::json(nullptr)}};
  harness::AddProvenanceJson(j, r.provenance);
  return j;
}

}  // namespace kb
