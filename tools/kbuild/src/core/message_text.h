// Text quoted from files kbuild reads goes into messages cut short: a hostile
// or broken file (a 1 MB single-line build.toml) must not flood the terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kb {

inline constexpr size_t kMaxQuotedChars = 200;   // a quoted name or source line
inline constexpr size_t kMaxMessageChars = 400;  // a whole message or hint

// `text` as is when short, else its first `max` characters and "...".
std::string CutForMessage(std::string_view text, size_t max = kMaxQuotedChars);

// `text` on one line for a terminal: control characters (newlines, escape sequences a
// hostile file may carry) become spaces, then CutForMessage.
std::string OneLine(std::string_view text, size_t max = kMaxMessageChars);

// The part of a long source line shown around a 1-based `column`: at most
// `max` characters, "..." where it was cut, and where the column now lies.
struct LineWindow {
  std::string text;
  int column = 0;
};
// `text` as it may reach a terminal: control characters other than newline and tab (an
// escape sequence from a hostile file could retitle, clear or rewrite the terminal), DEL
// and the C1 controls of UTF-8 (U+0080-U+009F) become spaces.
std::string ForTerminal(std::string_view text);

LineWindow WindowAround(std::string_view line, int column, size_t max = kMaxQuotedChars);

}  // namespace kb
