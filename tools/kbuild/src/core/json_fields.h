// Reading fields of documents other programs wrote (the harness's benchmark document, the peer
// worker's results): a missing key, or one of another type, reads as the fallback instead of
// throwing as nlohmann::json::value does.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace kb {

// A finite number at `key` of `object`, else `fallback`.
inline double NumberOr(const nlohmann::json& object, const char* key, double fallback = 0) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return fallback;
  const double value = it->get<double>();
  return std::isfinite(value) ? value : fallback;
}

// A string at `key` of `object`, else `fallback`.
inline std::string StringOr(const nlohmann::json& object, const char* key,
                            const std::string& fallback = "") {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
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
