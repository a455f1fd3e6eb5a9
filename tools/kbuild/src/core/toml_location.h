// Errors that point into a text file (build.toml, a .cu source): the location
// plus a compiler-style excerpt of the offending line with a caret under the
// column, so a reader sees the spot without opening the file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace kb {

// 1-based position in a file; 0 = unknown.
struct SourceLocation {
  int line = 0;
  int column = 0;
};

class SourceText {
 public:
  // `display_path` is what errors print as the file name (e.g. "build.toml").
  SourceText(std::string display_path, std::string_view text);

  const std::string& path() const { return path_; }
  int line_count() const { return static_cast<int>(lines_.size()); }
  // The line's text without its newline; empty when out of range.
  std::string_view Line(int line) const;

  // "   12 | text\n      |   ^\n"; empty when the line is unknown.
  std::string Excerpt(SourceLocation at) const;

  // An error located at `at`, with the excerpt as its detail.
  Error ErrorAt(ExitCode code, SourceLocation at, std::string message, std::string hint = {}) const;

 private:
  std::string path_;
  std::vector<std::string> lines_;
};

}  // namespace kb
