// Which benchmark case kbuild profile runs: the names the benchmark binary
// lists (--benchmark_list_tests), the case asked for or the first performance
// case, and the --benchmark_filter that runs exactly that one.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/process.h"

namespace kb {

// "<benchmark>/<case>" names in listed order, without Google Benchmark's
// "/iterations:1/manual_time" suffixes.
std::vector<std::string> ParseBenchmarkList(std::string_view output);

// Runs `binary --benchmark_list_tests=true`; exit 3 when it cannot list,
// exit 2 when it lists nothing.
Expected<std::vector<std::string>> ListBenchmarkCases(
    ProcessRunner& runner, const std::filesystem::path& binary,
    const std::map<std::string, std::string>& env);

// Correctness-only and rejection cases are not timed: nothing to profile.
bool IsPerformanceCase(const std::string& name);

struct CaseChoice {
  std::string name;       // "<benchmark>/<case>"
  std::string chosen_by;  // "--case" or "first performance case"
};

// `requested` is a full "<benchmark>/<case>" name, or a "<case>" one benchmark
// has. Nothing requested: the first performance case. An unknown name is exit
// 2 with the nearest name as a hint.
Expected<CaseChoice> ChooseCase(const std::vector<std::string>& cases,
                                const std::optional<std::string>& requested);

// A --benchmark_filter matching only `name` (Google Benchmark matches the
// regex against "<name>/iterations:1/manual_time").
std::string CaseFilterRegex(const std::string& name);

// "rms_norm/8192x4096 bf16" -> "rms_norm_8192x4096_bf16": safe as a file name.
std::string CaseFileStem(const std::string& name);

}  // namespace kb
