// profile.md of `kbuild optimize`'s context folder: a `kbuild profile --json`
// document (references/kbuild-output.md, "kbuild profile") rendered short for
// a proposer: per profiled kernel the verdict, its causes, DRAM as a percent
// of the measured copy bandwidth, occupancy and its limiter, the top stalls
// and the SASS line (load/store widths, local memory); without ncu counters,
// why not and the static SASS check of every project kernel.
//
// The document is another process's output: every key is read with a
// fallback, numbers it lacks print as "?", text is cut to one line, and at
// most kMaxProfiledKernelsShown kernels are listed.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace kb {

inline constexpr size_t kMaxProfiledKernelsShown = 8;

// `title` heads the file ("a0003 on 'op/large'").
std::string ProfileMarkdown(const nlohmann::json& profile_document, const std::string& title);

}  // namespace kb
