#include "core/cmake_quote.h"

namespace kb {

std::string CMakeBracket(std::string_view text) {
  // The closing bracket must not occur inside, nor start at a trailing "]=..." of the text.
  const std::string closed = std::string(text) + "]";
  std::string equals;
  while (closed.find("]" + equals + "]") != std::string::npos) equals += '=';
  // CMake drops a newline right after the opening bracket; add one to keep the text's own.
  const std::string open = "[" + equals + "[" + (text.starts_with('\n') ? "\n" : "");
  return open + std::string(text) + "]" + equals + "]";
}

std::optional<std::string> CMakeUnsupportedPathReason(std::string_view path) {
  for (char c : path) {
    if (c == '\n' || c == '\r') return "a line break";
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a control character";
    if (c == ';') return "a ';' (CMake splits lists at it)";
    if (c == '\\') return "a '\\' (CMake turns it into '/')";
    // CMake expands $NAME{...} in source names even when bracketed, and nvcc
    // puts a source's name into a shell command, where $, ` and " are live.
    if (c == '$' || c == '`' || c == '"') {
      return std::string("a '") + c + "' (CMake and nvcc would expand it, not name the file)";
    }
  }
  return std::nullopt;
}

}  // namespace kb
