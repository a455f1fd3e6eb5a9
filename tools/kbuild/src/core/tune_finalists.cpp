#include "core/tune_finalists.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/message_text.h"

namespace kb {

namespace {

constexpr size_t kMaxFullTests = 10000;

}  // namespace

Expected<size_t> ParseFullTests(const std::string& text) {
  if (text == "all") return kTuneFullTestsAll;
  const bool digits = !text.empty() && text.size() <= 5 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && std::stoul(text) <= kMaxFullTests) return static_cast<size_t>(std::stoul(text));
  return MakeError(ExitCode::kUsage,
                   "--full-tests must be 'all' or a count from 0 to " +
                       std::to_string(kMaxFullTests) + ", got '" + CutForMessage(text) + "'",
                   "e.g. --full-tests 3 (the default): the three best variants get the full "
                   "test suite");
}

std::optional<std::string> NextFinalist(const TuneRanking& ranking, size_t wanted,
                                        const std::string& defaults_id,
                                        const std::vector<BucketBest>& bucket_leaders,
                                        const std::vector<BucketBest>& bucket_tested) {
  const auto fully_tested = [&](const std::string& id) {
    return std::any_of(ranking.ranked.begin(), ranking.ranked.end(),
                       [&](const RankedVariant& r) { return r.id == id; });
  };
  size_t passed = 0;
  for (const auto& v : ScoredByRank(ranking)) {
    if (v.id == defaults_id) continue;
    if (passed >= wanted) break;
    if (!fully_tested(v.id)) return v.id;
    ++passed;
  }
  if (wanted == 0) return std::nullopt;
  for (const auto& leader : bucket_leaders) {
    if (leader.id == defaults_id || fully_tested(leader.id)) continue;
    const auto tested = std::find_if(
        bucket_tested.begin(), bucket_tested.end(),
        [&](const BucketBest& b) { return b.bucket.max_bytes == leader.bucket.max_bytes; });
    if (tested == bucket_tested.end() || leader.score > tested->score * kBucketLeaderMargin) {
      return leader.id;
    }
  }
  return std::nullopt;
}

size_t FullyTestedCount(const TuneRanking& ranking, const std::string& defaults_id) {
  return static_cast<size_t>(
      std::count_if(ranking.ranked.begin(), ranking.ranked.end(),
                    [&](const RankedVariant& r) { return r.id != defaults_id; }));
}

std::string TuneTimeLeftText(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  if (s < 90) return fmt::format("~{} s left", s);
  const long long minutes = (s + 30) / 60;
  if (minutes < 90) return fmt::format("~{} min left", minutes);
  return fmt::format("~{} h {:02} min left", minutes / 60, minutes % 60);
}

}  // namespace kb
