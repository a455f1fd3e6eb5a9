#include "core/tune_results.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/history_lines.h"
#include "core/json_fields.h"
#include "core/macro_defines.h"
#include "core/message_text.h"
#include "core/work_queue.h"

namespace kb {

namespace {

using Json = nlohmann::ordered_json;  // keeps the parameters in the space's order

constexpr std::array<std::pair<TuneStage, const char*>, 7> kStageWords = {{
    {TuneStage::kPending, "pending"},
    {TuneStage::kBuildFailed, "build-failed"},
    {TuneStage::kTestFailed, "test-failed"},
    {TuneStage::kBenchFailed, "bench-failed"},
    {TuneStage::kSpills, "spills"},
    {TuneStage::kLost, "lost"},
    {TuneStage::kDone, "done"},
}};

constexpr std::array<std::pair<TuneTests, const char*>, 3> kTestsWords = {{
    {TuneTests::kNone, "none"},
    {TuneTests::kFiltered, "filter"},
    {TuneTests::kFull, "full"},
}};

constexpr const char* kHistoryHint =
    "the file was changed after kbuild tune wrote it; remove the line or start a fresh run "
    "without --resume";

// The checks of one history record; the first failure names its key.
class RecordReader {
 public:
  std::string problem;  // "" while everything read is valid

  std::string String(const Json& object, const std::string& key, const std::string& shown) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return Fail(shown, "expected a string");
    return it->get<std::string>();
  }
  double Number(const Json& object, const std::string& key, const std::string& shown) {
    const auto it = object.find(key);
    const bool number = it != object.end() && it->is_number();
    const double value = number ? it->get<double>() : 0;
    if (!number || !std::isfinite(value) || value < 0) {
      Fail(shown, "expected a number >= 0");
      return 0;
    }
    return value;
  }
  std::string Fail(const std::string& key, const std::string& what) {
    if (problem.empty()) problem = key + ": " + what;
    return {};
  }
};

std::optional<TuneEvaluation> ParseRecord(const Json& line, std::string* problem) {
  RecordReader r;
  TuneEvaluation e;
  if (!line.is_object()) {
    *problem = "expected a JSON object";
    return std::nullopt;
  }
  e.variant.id = r.String(line, "id", "id");
  if (r.problem.empty() && e.variant.id.empty()) r.Fail("id", "expected a variant id");
  const auto params = line.find("params");
  if (params == line.end() || !params->is_object()) {
    r.Fail("params", "expected an object");
  } else {
    std::vector<std::string> defines;
    for (auto it = params->begin(); r.problem.empty() && it != params->end(); ++it) {
      defines.push_back(it.key() + "=" + r.String(*params, it.key(), "params." + it.key()));
    }
    // The values reach compiler command lines: checked as --define checks them.
    auto values = ParseMacroDefines(defines);
    if (r.problem.empty() && !values) r.Fail("params", values.error().message);
    if (values) e.variant.values = std::move(*values);
  }
  // The id names the variant's folder in the run (variants/<id>/).
  if (r.problem.empty() && !CheckQueueName(e.variant.id, "id")) {
    r.Fail("id", "'" + OneLine(e.variant.id) +
                     "' cannot name a folder (1-100 letters, digits, '-' or '_')");
  }
  const auto stage = TuneStageFromWord(r.String(line, "stage", "stage"));
  if (!stage) r.Fail("stage", "expected one of pending, build-failed, test-failed, ...");
  e.stage = stage.value_or(TuneStage::kPending);
  e.reason = OneLine(r.String(line, "reason", "reason"));
  e.tests = TuneTests::kFull;  // older lines: every variant ran the full suite
  if (line.contains("tests")) {
    const auto tests = TuneTestsFromWord(r.String(line, "tests", "tests"));
    if (!tests) r.Fail("tests", "expected one of none, filter, full");
    e.tests = tests.value_or(TuneTests::kNone);
  }
  const double spill = r.Number(line, "spill_bytes", "spill_bytes");
  if (spill > INT_MAX) r.Fail("spill_bytes", "too large");
  e.spill_bytes = static_cast<int>(std::min<double>(spill, INT_MAX));
  e.build_seconds = r.Number(line, "build_seconds", "build_seconds");
  // Absent in lines written before they were recorded.
  if (line.contains("test_seconds"))
    e.test_seconds = r.Number(line, "test_seconds", "test_seconds");
  if (line.contains("bench_seconds")) {
    e.bench_seconds = r.Number(line, "bench_seconds", "bench_seconds");
  }
  const auto cases = line.find("cases");
  const bool has_cases = cases != line.end() && cases->is_array();
  if (!has_cases) r.Fail("cases", "expected an array");
  for (size_t i = 0; has_cases && r.problem.empty() && i < cases->size(); ++i) {
    const Json& c = (*cases)[i];
    const std::string at = "cases[" + std::to_string(i) + "]";
    if (!c.is_object()) {
      r.Fail(at, "expected an object");
      break;
    }
    e.cases.push_back({r.String(c, "name", at + ".name"),
                       r.Number(c, "median_us", at + ".median_us"),
                       r.Number(c, "percent_of_peak", at + ".percent_of_peak"),
                       r.Number(c, "bytes", at + ".bytes")});
  }
  if (!r.problem.empty()) {
    *problem = r.problem;
    return std::nullopt;
  }
  return e;
}

}  // namespace

std::optional<TuneEvaluation> ParseHistoryLine(std::string_view text, std::string* problem) {
  const Json line = ParseUntrustedJson<Json>(text);
  if (line.is_discarded()) {
    *problem = "not valid JSON";
    return std::nullopt;
  }
  return ParseRecord(line, problem);
}

namespace {

Error HistoryError(const std::filesystem::path& path, int line, const std::string& message) {
  Error e = MakeError(ExitCode::kUsage, OneLine(message), kHistoryHint);
  e.path = path.string();
  e.line = line;
  return e;
}

const TuneEvaluation* FindEvaluation(const std::vector<TuneEvaluation>& evaluations,
                                     const std::string& id) {
  for (const auto& e : evaluations) {
    if (e.variant.id == id) return &e;
  }
  return nullptr;
}

const TuneCaseTime* FindCase(const TuneEvaluation& e, const std::string& name) {
  for (const auto& c : e.cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// The baseline's timed cases: what every variant is compared on.
Expected<std::vector<TuneCaseTime>> PerformanceCases(const std::vector<TuneEvaluation>& evaluations,
                                                     const std::string& baseline_id) {
  const TuneEvaluation* base = FindEvaluation(evaluations, baseline_id);
  if (base == nullptr || base->stage != TuneStage::kDone) {
    return MakeError(ExitCode::kInternal,
                     "the baseline variant '" + baseline_id + "' is not a valid evaluated variant",
                     "pick the baseline with ChooseBaselineId");
  }
  std::vector<TuneCaseTime> cases;
  for (const auto& c : base->cases) {
    if (c.median_us > 0) cases.push_back(c);
  }
  if (cases.empty()) {
    return MakeError(ExitCode::kInternal,
                     "the baseline variant '" + baseline_id + "' has no timed case");
  }
  return cases;
}

// Baseline median / the variant's median per performance case; "" or the
// reason the variant cannot be scored.
std::string SpeedupsOf(const TuneEvaluation& e, const std::vector<TuneCaseTime>& cases,
                       std::vector<double>* speedups) {
  for (const auto& base : cases) {
    const TuneCaseTime* c = FindCase(e, base.name);
    if (c == nullptr) return "missing case " + base.name;
    if (c->median_us <= 0) return "no time for case " + base.name;
    speedups->push_back(base.median_us / c->median_us);
  }
  return "";
}

double Geomean(const std::vector<double>& values, const std::vector<size_t>& which) {
  double log_sum = 0;
  for (size_t i : which) log_sum += std::log(values[i]);
  return which.empty() ? 0 : std::exp(log_sum / static_cast<double>(which.size()));
}

constexpr int kBucketCount = 9;  // 64 KiB * 4^0 .. 4^7 (1 GiB), then "larger"

int BucketIndex(double bytes) {
  double bound = 64.0 * 1024;
  for (int i = 0; i + 1 < kBucketCount; ++i, bound *= 4) {
    if (bytes <= bound) return i;
  }
  return kBucketCount - 1;
}

ShapeBucket BucketAt(int index) {
  if (index >= kBucketCount - 1) return {"larger", -1};
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB"};
  const int log2 = 16 + 2 * index;  // 64 KiB = 2^16
  const long long bytes = 1LL << log2;
  const std::string label =
      "<= " + std::to_string(1LL << (log2 % 10)) + " " + kUnits[log2 / 10 - 1];
  return {label, bytes};
}

bool Better(double score, const std::string& id, double best_score, const std::string& best_id) {
  return score > best_score || (score == best_score && id < best_id);
}

void SortByScore(std::vector<RankedVariant>& variants) {
  std::sort(variants.begin(), variants.end(), [](const RankedVariant& a, const RankedVariant& b) {
    return Better(a.score, a.id, b.score, b.id);
  });
}

}  // namespace

std::string TuneStageWord(TuneStage stage) {
  for (const auto& [s, word] : kStageWords) {
    if (s == stage) return word;
  }
  return "pending";
}

std::optional<TuneStage> TuneStageFromWord(std::string_view word) {
  for (const auto& [s, w] : kStageWords) {
    if (word == w) return s;
  }
  return std::nullopt;
}

std::string TuneTestsWord(TuneTests tests) {
  for (const auto& [t, word] : kTestsWords) {
    if (t == tests) return word;
  }
  return "none";
}

std::optional<TuneTests> TuneTestsFromWord(std::string_view word) {
  for (const auto& [t, w] : kTestsWords) {
    if (word == w) return t;
  }
  return std::nullopt;
}

std::string HistoryLine(const TuneEvaluation& e) {
  Json params = Json::object();
  for (const auto& [name, value] : e.variant.values) params[name] = value;
  Json cases = Json::array();
  for (const auto& c : e.cases) {
    cases.push_back({{"name", c.name},
                     {"median_us", c.median_us},
                     {"percent_of_peak", c.percent_of_peak},
                     {"bytes", c.bytes}});
  }
  const Json line = {{"id", e.variant.id},
                     {"params", params},
                     {"stage", TuneStageWord(e.stage)},
                     {"reason", e.reason},
                     {"tests", TuneTestsWord(e.tests)},
                     {"spill_bytes", e.spill_bytes},
                     {"build_seconds", e.build_seconds},
                     {"test_seconds", e.test_seconds},
                     {"bench_seconds", e.bench_seconds},
                     {"cases", cases}};
  // Compiler output may hold bytes that are not UTF-8: replaced, not thrown.
  return line.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Status AppendHistory(FileSystem& fs, const std::filesystem::path& path, const TuneEvaluation& e) {
  return AppendHistoryLine(fs, path, HistoryLine(e), [](std::string_view line) {
    std::string problem;
    return ParseHistoryLine(line, &problem).has_value();
  });
}

Expected<TuneHistory> ReadHistory(const FileSystem& fs, const std::filesystem::path& path) {
  auto text = ReadHistoryText(fs, path);
  if (!text) return text.error();
  TuneHistory history;
  std::map<std::string, size_t> index_of;
  for (const JsonLine& line : HistoryLines(*text)) {
    std::string problem;
    auto record = ParseHistoryLine(line.text, &problem);
    if (!record && line.last) {
      history.warnings.push_back(path.string() + ":" + std::to_string(line.number) +
                                 ": skipped the last line (" + OneLine(problem) +
                                 "), as an interrupted run leaves it; that variant is evaluated "
                                 "again");
      continue;
    }
    if (!record) return HistoryError(path, line.number, problem);
    const auto [it, added] = index_of.emplace(record->variant.id, history.evaluations.size());
    if (added) {
      history.evaluations.push_back(std::move(*record));
    } else {
      history.evaluations[it->second] = std::move(*record);
    }
  }
  return history;
}

Expected<TuneRanking> RankVariants(const std::vector<TuneEvaluation>& evaluations,
                                   const std::string& baseline_id) {
  auto cases = PerformanceCases(evaluations, baseline_id);
  if (!cases) return cases.error();
  TuneRanking ranking;
  std::vector<UnrankedVariant> invalid;
  for (const auto& e : evaluations) {
    if (e.stage != TuneStage::kDone) {
      const std::string why = e.reason.empty() ? "" : ": " + e.reason;
      invalid.push_back({e.variant.id, TuneStageWord(e.stage) + why});
      continue;
    }
    std::vector<double> speedups;
    if (std::string why = SpeedupsOf(e, *cases, &speedups); !why.empty()) {
      ranking.unranked.push_back({e.variant.id, why});
      continue;
    }
    std::vector<size_t> all(speedups.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    const size_t worst = std::min_element(speedups.begin(), speedups.end()) - speedups.begin();
    (e.tests == TuneTests::kFull ? ranking.ranked : ranking.screened)
        .push_back({e.variant.id, Geomean(speedups, all), (*cases)[worst].name, speedups[worst]});
  }
  SortByScore(ranking.ranked);
  SortByScore(ranking.screened);
  ranking.unranked.insert(ranking.unranked.end(), invalid.begin(), invalid.end());
  return ranking;
}

std::vector<RankedVariant> ScoredByRank(const TuneRanking& ranking) {
  std::vector<RankedVariant> all = ranking.ranked;
  all.insert(all.end(), ranking.screened.begin(), ranking.screened.end());
  SortByScore(all);
  return all;
}

std::string ChooseBaselineId(const std::vector<TuneEvaluation>& evaluations,
                             const std::string& preferred_id) {
  const TuneEvaluation* preferred = FindEvaluation(evaluations, preferred_id);
  if (preferred != nullptr && preferred->stage == TuneStage::kDone) return preferred_id;
  for (const auto& e : evaluations) {
    if (e.stage == TuneStage::kDone) return e.variant.id;
  }
  return "";
}

ShapeBucket ShapeBucketOf(double bytes) { return BucketAt(BucketIndex(bytes)); }

Expected<std::vector<BucketBest>> BestPerBucket(const std::vector<TuneEvaluation>& evaluations,
                                                const std::string& baseline_id,
                                                BucketContenders contenders) {
  auto ranking = RankVariants(evaluations, baseline_id);
  if (!ranking) return ranking.error();
  const std::vector<RankedVariant> competing =
      contenders == BucketContenders::kScored ? ScoredByRank(*ranking) : ranking->ranked;
  const std::vector<TuneCaseTime> cases = *PerformanceCases(evaluations, baseline_id);
  std::vector<std::vector<size_t>> members(kBucketCount);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].bytes > 0) members[BucketIndex(cases[i].bytes)].push_back(i);
  }
  std::vector<BucketBest> best;
  for (int b = 0; b < kBucketCount; ++b) {
    if (members[b].empty()) continue;
    BucketBest entry{BucketAt(b), "", 0, static_cast<int>(members[b].size())};
    for (const auto& ranked : competing) {
      std::vector<double> speedups;
      SpeedupsOf(*FindEvaluation(evaluations, ranked.id), cases, &speedups);
      const double score = Geomean(speedups, members[b]);
      if (entry.id.empty() || Better(score, ranked.id, entry.score, entry.id)) {
        entry.id = ranked.id;
        entry.score = score;
      }
    }
    best.push_back(entry);
  }
  return best;
}

}  // namespace kb
