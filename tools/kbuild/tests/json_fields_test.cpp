// Documents other programs wrote: nesting is bounded before parsing (nlohmann's
// dump() and comparisons recurse), and fields of the wrong type read as the fallback.
#include "core/json_fields.h"

#include <gtest/gtest.h>

#include <string>

namespace kb {
namespace {

TEST(JsonFields, NestingCountsBracketsOutsideStringsOnly) {
  EXPECT_EQ(JsonNesting(R"({"a": [1, {"b": []}]})"), 4);
  EXPECT_EQ(JsonNesting(R"({"a": "[[[[{{{{"})"), 1);
  EXPECT_EQ(JsonNesting(R"({"a": "\"[[[", "b": [[]]})"),
            3);  // an escaped quote stays in the string
  EXPECT_EQ(JsonNesting("7"), 0);
}

TEST(JsonFields, UntrustedJsonDeeperThanTheBoundIsDiscarded) {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_FALSE(ParseUntrustedJson(nested(kMaxJsonNesting)).is_discarded());
  EXPECT_TRUE(ParseUntrustedJson(nested(kMaxJsonNesting + 1)).is_discarded());
  EXPECT_TRUE(ParseUntrustedJson(nested(1000000)).is_discarded());
  EXPECT_TRUE(ParseUntrustedJson("{not json").is_discarded());
  EXPECT_EQ(ParseUntrustedJson<nlohmann::ordered_json>(R"({"b": 1, "a": 2})").begin().key(), "b");
}

TEST(JsonFields, FieldsOfTheWrongTypeReadAsTheFallback) {
  const auto doc = nlohmann::json::parse(R"({"s": 1, "n": "x", "b": 0, "ok": true})");
  EXPECT_EQ(StringOr(doc, "s", "none"), "none");
  EXPECT_EQ(NumberOr(doc, "n", -1), -1);
  EXPECT_TRUE(BoolOr(doc, "b", true));
  EXPECT_TRUE(BoolOr(doc, "ok", false));
  EXPECT_EQ(StringOr(nlohmann::json::array(), "s", "none"), "none");
}

// A hostile 1e308 printed in full is 309 digits; 1e-300 as a median, a 300-digit speedup.
TEST(JsonFields, MeasurementsOfImplausibleMagnitudeReadAsMissingOrZero) {
  const auto doc = nlohmann::json::parse(
      R"({"huge": 1e308, "low": -1e16, "tiny": 1e-300, "us": 12.5, "ratio": 1e-6, "gb": 1e14})");
  EXPECT_EQ(NumberOr(doc, "huge", -1), -1);
  EXPECT_EQ(NumberOr(doc, "low", -1), -1);
  EXPECT_EQ(NumberOr(doc, "tiny", -1), 0);
  EXPECT_EQ(NumberOr(doc, "us"), 12.5);
  EXPECT_EQ(NumberOr(doc, "ratio"), 1e-6);
  EXPECT_EQ(NumberOr(doc, "gb"), 1e14);
  EXPECT_EQ(FiniteNumberOr(doc, "huge"), 1e308);
}

// A hostile count of 1e300 (or -1e300) would be undefined behaviour cast to an integer.
TEST(JsonFields, IntegersAreClampedToTheirTypeBeforeTheCast) {
  const auto doc = nlohmann::json::parse(
      R"({"huge": 1e300, "tiny": -1e300, "cases": 12, "half": 2.5, "bytes": 5e18, "s": "7"})");
  EXPECT_EQ(IntegerOr(doc, "huge"), std::numeric_limits<int>::max() - 1);
  EXPECT_EQ(IntegerOr(doc, "tiny"), std::numeric_limits<int>::min());
  EXPECT_EQ(IntegerOr(doc, "cases"), 12);
  EXPECT_EQ(IntegerOr(doc, "half"), 2);
  EXPECT_EQ(IntegerOr(doc, "s", -1), -1);
  EXPECT_EQ(IntegerOr<long long>(doc, "bytes"), 5000000000000000000LL);
  EXPECT_GT(IntegerOr<long long>(doc, "huge"), 9'000'000'000'000'000'000LL);
}

}  // namespace
}  // namespace kb
