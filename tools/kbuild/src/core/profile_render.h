// A ProfileSummary as aligned text lines (one field per line, ending in the
// verdict) and as the JSON object of kbuild profile's "kernels" array
// (references/kbuild-output.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/profile_summary.h"

namespace kb {

// A few aligned lines ending in the verdict.
std::string RenderProfileSummary(const ProfileSummary& summary);

nlohmann::json ProfileSummaryJson(const ProfileSummary& summary);

// What a warp stall reason means, in a few words ("" for an unknown one).
std::string StallMeaning(const std::string& reason);

}  // namespace kb
