// Compares two benchmark documents (before/after) case by case and flags
// changes larger than the measured noise. Torch-free: `kbuild bench
// --compare` and CI use it on files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kb::harness {

struct RegressionRow {
  std::string key;  // "<benchmark>/<case>"
  double before_us = 0;
  double after_us = 0;
  double change = 0;     // after / before - 1 (positive = slower)
  double threshold = 0;  // |change| above this is not noise
  std::string status;    // regression, improvement, noise, new, missing, failed
};

struct RegressionReport {
  std::vector<RegressionRow> rows;
  int regressions = 0;  // rows with status regression or failed
  std::string error;    // set when a document is not a benchmark document
};

// A change counts when it exceeds both min_change and the mean relative
// spread ((p90 - p10) / median) of the two measurements.
RegressionReport CompareBenchDocuments(const nlohmann::json& before, const nlohmann::json& after,
                                       double min_change = 0.03);

}  // namespace kb::harness
