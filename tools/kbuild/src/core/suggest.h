// "Did you mean ...?" for unknown commands, keys, templates and kernels.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

// Edit distance (insert, delete, substitute, adjacent swap).
int EditDistance(std::string_view a, std::string_view b);

// The closest candidate, if it is close enough to be a plausible typo
// (distance <= max(2, len/3)); nothing otherwise.
std::optional<std::string> NearestName(std::string_view word,
                                       const std::vector<std::string>& candidates);

// "did you mean 'x'?" or, with no close candidate, "valid: a, b, c".
std::string SuggestionHint(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace kb
