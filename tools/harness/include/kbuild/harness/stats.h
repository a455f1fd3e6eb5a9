// Summary statistics for timing samples and speedups. Torch-free.
#pragma once

#include <cstddef>
#include <vector>

namespace kb::harness {

struct Summary {
  std::size_t count = 0;
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0, mean = 0;
};

// Percentile q in [0, 1] of sorted samples, linear interpolation between ranks
// (numpy's default), so p50 of {1, 2, 3, 4} is 2.5.
double Percentile(const std::vector<double>& sorted, double q);

// All zeros for an empty input.
Summary Summarize(std::vector<double> samples);

// Geometric mean of positive values; 0 when empty or when any value is <= 0
// (a speedup of 0 means a failed case, which must not average away).
double GeometricMean(const std::vector<double>& values);

// (p90 - p10) / median: the spread used to call a difference noise.
double RelativeSpread(const Summary& s);

}  // namespace kb::harness
