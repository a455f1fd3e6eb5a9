#include "core/suggest.h"

#include <algorithm>

namespace kb {

int EditDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> NearestName(std::string_view word,
                                       const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  int best_distance = 0;
  for (const auto& c : candidates) {
    const int dist = EditDistance(word, c);
    if (!best || dist < best_distance) {
      best = c;
      best_distance = dist;
    }
  }
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  if (best && best_distance <= limit) return best;
  return std::nullopt;
}

std::string SuggestionHint(std::string_view word, const std::vector<std::string>& candidates) {
  if (auto near = NearestName(word, candidates)) return "did you mean '" + *near + "'?";
  std::string list;
  for (const auto& c : candidates) list += (list.empty() ? "" : ", ") + c;
  return "valid: " + list;
}

}  // namespace kb
