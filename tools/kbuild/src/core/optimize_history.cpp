#include "core/optimize_history.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/history_lines.h"
#include "core/json_fields.h"
#include "core/macro_defines.h"
#include "core/report.h"
#include "core/tune_results.h"

namespace kb {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::pair<AttemptVerdict, const char*>, 8> kVerdicts = {{
    {AttemptVerdict::kOk, "ok"},
    {AttemptVerdict::kCompileError, "compile_error"},
    {AttemptVerdict::kTestFailed, "test_failed"},
    {AttemptVerdict::kCrashed, "crashed"},
    {AttemptVerdict::kTimedOut, "timed_out"},
    {AttemptVerdict::kRuleBroken, "rule_broken"},
    {AttemptVerdict::kProposerFailed, "proposer_failed"},
    {AttemptVerdict::kLost, "lost"},
}};

constexpr std::array<std::pair<CandidateOrigin, const char*>, 5> kOrigins = {{
    {CandidateOrigin::kBaseline, "baseline"},
    {CandidateOrigin::kProposer, "proposer"},
    {CandidateOrigin::kBuiltin, "builtin"},
    {CandidateOrigin::kRepair, "repair"},
    {CandidateOrigin::kMigration, "migration"},
}};

bool ValidId(const std::string& id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum((unsigned char)c) || c == '-';
  });
}

}  // namespace

std::string VerdictWord(AttemptVerdict verdict) {
  for (const auto& [v, word] : kVerdicts) {
    if (v == verdict) return word;
  }
  return "ok";
}

std::optional<AttemptVerdict> VerdictFromWord(const std::string& word) {
  for (const auto& [v, w] : kVerdicts) {
    if (word == w) return v;
  }
  return std::nullopt;
}

std::string OriginWord(CandidateOrigin origin) {
  for (const auto& [o, word] : kOrigins) {
    if (o == origin) return word;
  }
  return "proposer";
}

std::optional<CandidateOrigin> OriginFromWord(const std::string& word) {
  for (const auto& [o, w] : kOrigins) {
    if (word == w) return o;
  }
  return std::nullopt;
}

Json AttemptJson(const Attempt& a) {
  const Candidate& c = a.candidate;
  Json files = Json::array();
  for (const auto& f : c.files) files.push_back(f.relative.generic_string());
  Json defines = Json::object();
  for (const auto& [name, value] : c.defines) defines[name] = value;
  Json cases = Json::array();
  for (const auto& t : a.cases) {
    cases.push_back({{"name", t.name},
                     {"median_us", t.median_us},
                     {"percent_of_peak", t.percent_of_peak},
                     {"bytes", t.bytes}});
  }
  Json line = {{"id", c.id},
               {"island", c.island},
               {"parent", c.parent},
               {"origin", OriginWord(c.origin)},
               {"repair", c.repair},
               {"files", files},
               {"defines", defines},
               {"summary", c.summary},
               {"verdict", VerdictWord(a.verdict)},
               {"first_error", a.first_error},
               {"error_source", a.error_source},
               {"seconds",
                {{"propose", a.propose_seconds},
                 {"build", a.build_seconds},
                 {"test", a.test_seconds},
                 {"bench", a.bench_seconds}}},
               {"tests_passed", a.tests_passed},
               {"score", a.score},
               {"cases", cases}};
  if (a.cost) {
    line["cost"] = {{"tokens", a.cost->tokens}, {"usd", a.cost->usd}, {"seconds", a.cost->seconds}};
  }
  return line;
}

std::optional<Attempt> AttemptFromJson(const Json& line, std::string* problem) {
  auto fail = [&](const std::string& key) {
    *problem = "key '" + key + "' is missing or of the wrong type";
    return std::optional<Attempt>();
  };
  if (!line.is_object()) return fail("(the line is not an object)");
  Attempt a;
  Candidate& c = a.candidate;
  c.id = StringOr(line, "id");
  if (!ValidId(c.id)) return fail("id");
  c.island = IntegerOr(line, "island", -1);
  if (c.island < 0 || c.island > 1024) return fail("island");
  c.parent = StringOr(line, "parent");
  const auto origin = OriginFromWord(StringOr(line, "origin"));
  if (!origin) return fail("origin");
  c.origin = *origin;
  c.repair = static_cast<int>(std::clamp(NumberOr(line, "repair"), 0.0, 1000.0));
  for (const auto& f : ArrayAt(line, "files")) {
    if (!f.is_string() || !OutsideFolderReason(f.get<std::string>()).empty()) return fail("files");
    c.files.push_back({f.get<std::string>(), ""});
  }
  const Json defines = ObjectAt(line, "defines");  // items() must not outlive it
  std::vector<std::string> define_args;
  for (const auto& [name, value] : defines.items()) {
    if (!value.is_string()) return fail("defines");
    define_args.push_back(name + "=" + value.get<std::string>());
  }
  // They reach the children's command lines and best/defines.txt: checked as --define is.
  Expected<std::vector<MacroDefine>> checked = ParseMacroDefines(define_args);
  if (!checked) {
    *problem = "key 'defines': " + checked.error().message;
    return std::nullopt;
  }
  c.defines = std::move(*checked);
  c.summary = StringOr(line, "summary");
  const auto verdict = VerdictFromWord(StringOr(line, "verdict"));
  if (!verdict) return fail("verdict");
  a.verdict = *verdict;
  a.first_error = StringOr(line, "first_error");
  a.error_source = StringOr(line, "error_source");
  const Json seconds = ObjectAt(line, "seconds");
  a.propose_seconds = std::max(0.0, NumberOr(seconds, "propose"));
  a.build_seconds = std::max(0.0, NumberOr(seconds, "build"));
  a.test_seconds = std::max(0.0, NumberOr(seconds, "test"));
  a.bench_seconds = std::max(0.0, NumberOr(seconds, "bench"));
  a.tests_passed = static_cast<int>(std::clamp(NumberOr(line, "tests_passed"), 0.0, 1e9));
  a.score = std::max(0.0, NumberOr(line, "score"));
  for (const auto& t : ArrayAt(line, "cases")) {
    TuneCaseTime time;
    time.name = StringOr(t, "name");
    time.median_us = std::max(0.0, NumberOr(t, "median_us"));
    time.percent_of_peak = std::max(0.0, NumberOr(t, "percent_of_peak"));
    time.bytes = std::max(0.0, NumberOr(t, "bytes"));
    if (time.name.empty()) return fail("cases");
    a.cases.push_back(time);
  }
  if (line.contains("cost")) {
    const Json cost = ObjectAt(line, "cost");
    a.cost =
        AttemptCost{std::max(0.0, NumberOr(cost, "tokens")), std::max(0.0, NumberOr(cost, "usd")),
                    std::max(0.0, NumberOr(cost, "seconds"))};
  }
  return a;
}

Status AppendAttempt(FileSystem& fs, const std::filesystem::path& path, const Attempt& attempt) {
  // One line: invalid UTF-8 becomes U+FFFD instead of throwing (as JsonText does).
  const std::string line =
      AttemptJson(attempt).dump(-1, ' ', false, Json::error_handler_t::replace);
  return AppendHistoryLine(fs, path, line, [](std::string_view text) {
    std::string problem;
    const Json last = ParseUntrustedJson<Json>(text);
    return !last.is_discarded() && AttemptFromJson(last, &problem).has_value();
  });
}

Expected<OptimizeHistory> ReadAttempts(const FileSystem& fs, const std::filesystem::path& path) {
  auto text = ReadHistoryText(fs, path);
  if (!text) return text.error();
  OptimizeHistory history;
  for (const JsonLine& line : HistoryLines(*text)) {
    std::string problem = "not a JSON object";
    const Json json = ParseUntrustedJson<Json>(line.text);
    std::optional<Attempt> attempt;
    if (!json.is_discarded()) attempt = AttemptFromJson(json, &problem);
    if (!attempt) {
      if (line.last) {
        history.warnings.push_back(path.string() + ": the last line is cut short (" + problem +
                                   "); that attempt is done again");
        break;
      }
      Error e = MakeError(ExitCode::kUsage, problem,
                          "the history is written by kbuild optimize; restore or remove the line");
      e.path = path.string();
      e.line = line.number;
      return e;
    }
    auto same =
        std::find_if(history.attempts.begin(), history.attempts.end(),
                     [&](const Attempt& a) { return a.candidate.id == attempt->candidate.id; });
    if (same != history.attempts.end()) {
      *same = std::move(*attempt);
    } else {
      history.attempts.push_back(std::move(*attempt));
    }
  }
  return history;
}

double ScoreAgainst(const Attempt& baseline, const Attempt& attempt, std::string* why) {
  auto evaluation = [](const Attempt& a) {
    TuneEvaluation e;
    e.variant.id = a.candidate.id;
    e.stage = a.verdict == AttemptVerdict::kOk ? TuneStage::kDone : TuneStage::kTestFailed;
    e.tests = TuneTests::kFull;
    e.cases = a.cases;
    return e;
  };
  auto ranking = RankVariants({evaluation(baseline), evaluation(attempt)}, baseline.candidate.id);
  if (!ranking) {
    *why = ranking.error().message;
    return 0;
  }
  for (const auto& r : ranking->ranked) {
    if (r.id == attempt.candidate.id) return r.score;
  }
  for (const auto& u : ranking->unranked) {
    if (u.id == attempt.candidate.id) *why = u.reason;
  }
  return 0;
}

}  // namespace kb
