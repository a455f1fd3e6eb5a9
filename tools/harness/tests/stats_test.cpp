#include "kbuild/harness/stats.h"

#include <gtest/gtest.h>

namespace kb::harness {
namespace {

TEST(Stats, PercentileInterpolatesBetweenRanks) {
  std::vector<double> sorted = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.0), 1);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 1.0), 4);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.1), 1.3);
  EXPECT_DOUBLE_EQ(Percentile({}, 0.5), 0);
}

TEST(Stats, SummarizeSortsAndCounts) {
  Summary s = Summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(RelativeSpread(s), (4.6 - 1.4) / 3);
}

TEST(Stats, SummarizeEmptyIsZero) {
  Summary s = Summarize({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.median, 0);
  EXPECT_EQ(RelativeSpread(s), 0);
}

TEST(Stats, GeometricMean) {
  EXPECT_DOUBLE_EQ(GeometricMean({2, 8}), 4);
  EXPECT_NEAR(GeometricMean({1.5, 1.5, 1.5}), 1.5, 1e-12);
  EXPECT_EQ(GeometricMean({}), 0);
  // A failed case (speedup 0) must not be averaged away.
  EXPECT_EQ(GeometricMean({2, 0, 3}), 0);
}

}  // namespace
}  // namespace kb::harness
