// Small text helpers for the harness's problem messages: the first line of
// an exception's text (CUDA and torch errors carry long tails) and a shape
// as "[2, 3]".
#pragma once

#include <ATen/ATen.h>

#include <sstream>
#include <string>
#include <string_view>

namespace kb::harness {

inline std::string FirstLine(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

inline std::string ShapeText(at::IntArrayRef shape) {
  std::ostringstream out;
  out << shape;
  return out.str();
}

}  // namespace kb::harness
