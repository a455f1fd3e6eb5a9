// Reading documents other programs wrote (the harness's benchmark document, the peer
// worker's results, records a resumed run reads back): parsed with a bound on nesting, and a
// missing key, or one of another type, reads as the fallback instead of throwing as
// nlohmann::json::value does.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kb {

// kbuild's own documents nest a handful of levels.
inline constexpr int kMaxJsonNesting = 64;

// How deeply `text`'s arrays and objects nest; brackets inside strings do not count.
inline int JsonNesting(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character, '"' included
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// Json::parse(text, nullptr, false): a discarded value when `text` is not JSON, and also when
// it nests deeper than kMaxJsonNesting. nlohmann's dump() and comparisons recurse, so a few
// hundred KB of '[' in a record would overflow the stack when it is printed or compared.
template <typename Json = nlohmann::json>
Json ParseUntrustedJson(std::string_view text) {
  if (JsonNesting(text) > kMaxJsonNesting) return Json(Json::value_t::discarded);
  return Json::parse(text, nullptr, /*allow_exceptions=*/false);
}

// A finite number at `key` of `object`, else `fallback`.
inline double FiniteNumberOr(const nlohmann::json& object, const char* key, double fallback = 0) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return fallback;
  const double value = it->get<double>();
  return std::isfinite(value) ? value : fallback;
}

// The magnitudes a measurement in these documents can take (times, rates, bytes, costs and
// their ratios stay far inside them). Printed with "%.2f", a hostile 1e308 is 309 digits, and a
// median of 1e-300 makes a speedup of as many.
inline constexpr double kLargestMeasurement = 1e15;
inline constexpr double kSmallestMeasurement = 1e-12;

// A measurement at `key` of `object`: FiniteNumberOr, where a magnitude above
// kLargestMeasurement reads as `fallback` and one below kSmallestMeasurement as 0.
inline double NumberOr(const nlohmann::json& object, const char* key, double fallback = 0) {
  const double value = FiniteNumberOr(object, key, fallback);
  if (std::fabs(value) > kLargestMeasurement) return fallback;
  return std::fabs(value) < kSmallestMeasurement ? 0.0 : value;
}

// FiniteNumberOr as an integer type, clamped to the type's range first: casting a
// number outside it (a hostile 1e300) is undefined behaviour.
template <typename Int = int>
Int IntegerOr(const nlohmann::json& object, const char* key, Int fallback = 0) {
  const double lo = static_cast<double>(std::numeric_limits<Int>::min());
  // The largest double below the type's maximum (2^63 - 1 rounds up to 2^63).
  const double hi = std::nextafter(static_cast<double>(std::numeric_limits<Int>::max()), 0.0);
  return static_cast<Int>(
      std::clamp(FiniteNumberOr(object, key, static_cast<double>(fallback)), lo, hi));
}

// A string at `key` of `object`, else `fallback`.
inline std::string StringOr(const nlohmann::json& object, const char* key,
                            const std::string& fallback = "") {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// A bool at `key` of `object`, else `fallback`.
inline bool BoolOr(const nlohmann::json& object, const char* key, bool fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

// The object at `key` of `object`, else an empty object.
inline nlohmann::json ObjectAt(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nlohmann::json::object();
  const auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : nlohmann::json::object();
}

// The array at `key` of `object`, else an empty array.
inline nlohmann::json ArrayAt(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nlohmann::json::array();
  const auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : nlohmann::json::array();
}

}  // namespace kb
