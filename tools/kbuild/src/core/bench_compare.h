// kbuild bench --compare FILE: this run against an earlier results file,
// case by case, through the harness's own regression rule
// (kb::harness::CompareBenchDocuments: a change counts only when it exceeds
// 3% and the measured spread of both runs).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "kbuild/harness/regression.h"

namespace kb {

// An earlier run's results document, read BEFORE this run writes results/ (the file given
// to --compare is often results/latest.json, which this run replaces).
struct BenchBaseline {
  std::filesystem::path file;
  nlohmann::json document;
};

// Exit 2 when the file cannot be read or is not JSON.
Expected<BenchBaseline> LoadBenchBaseline(const FileSystem& fs,
                                          const std::filesystem::path& before_file);

// Exit 2 when the baseline is not a benchmark document.
Expected<harness::RegressionReport> CompareWithBaseline(const BenchBaseline& baseline,
                                                        const nlohmann::json& after);

// LoadBenchBaseline then CompareWithBaseline.
Expected<harness::RegressionReport> CompareWithFile(const FileSystem& fs,
                                                    const std::filesystem::path& before_file,
                                                    const nlohmann::json& after);

// Columns: case, before us, after us, change, noise, status (REGRESSION in
// capitals); then "N regression(s) beyond noise".
std::string RenderCompareTable(const harness::RegressionReport& report);

nlohmann::json CompareToJson(const harness::RegressionReport& report);

}  // namespace kb
