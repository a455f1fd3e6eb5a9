#include "core/source_scan.h"

#include <algorithm>

namespace kb {

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

size_t LineEnd(std::string_view t, size_t i) {
  while (i < t.size() && t[i] != '\n') {
    if (t[i] == '\\' && i + 1 < t.size() && t[i + 1] == '\n') ++i;
    if (t[i] == '\\' && i + 2 < t.size() && t[i + 1] == '\r' && t[i + 2] == '\n') i += 2;
    ++i;
  }
  return i;
}

size_t LiteralEnd(std::string_view t, size_t i) {
  const char quote = t[i];
  for (size_t j = i + 1; j < t.size(); ++j) {
    if (t[j] == '\\') {
      ++j;
    } else if (t[j] == quote) {
      return j + 1;
    } else if (t[j] == '\n') {
      return kNoPosition;
    }
  }
  return kNoPosition;
}

std::string_view WordBefore(std::string_view t, size_t i) {
  size_t from = i;
  while (from > 0 && IsIdentChar(t[from - 1])) --from;
  return t.substr(from, i - from);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsIdentifier(std::string_view s) {
  return !s.empty() && !IsDigit(s[0]) && std::all_of(s.begin(), s.end(), IsIdentChar);
}
bool IsIntegerLiteral(std::string_view s) {
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U')) s.remove_suffix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
}

std::vector<Token> Tokens(std::string_view m, size_t from, size_t to) {
  std::vector<Token> out;
  size_t i = from;
  while (i < to) {
    if (IsSpace(m[i])) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (IsIdentChar(m[i])) {
      while (j < to && IsIdentChar(m[j])) ++j;
    } else if (j < to && ((m[i] == ':' && m[j] == ':') || (m[i] == '+' && m[j] == '+'))) {
      ++j;
    }
    out.push_back({m.substr(i, j - i), i});
    i = j;
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> SplitTopLevel(std::string_view m, size_t from, size_t to) {
  std::vector<std::pair<size_t, size_t>> parts;
  int depth = 0;
  size_t start = from;
  for (size_t i = from; i < to; ++i) {
    const char c = m[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      parts.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (!Trim(m.substr(start, to - start)).empty() || !parts.empty()) parts.emplace_back(start, to);
  return parts;
}

std::string BlankNonCode(std::string_view t, bool* ok) {
  std::string out(t);
  *ok = true;
  const auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < out.size(); ++k) {
      if (out[k] != '\n' && out[k] != '\r') out[k] = ' ';
    }
  };
  bool line_start = true;
  size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    const char next = i + 1 < t.size() ? t[i + 1] : '\0';
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (IsSpace(c)) {
      ++i;
    } else if (c == '/' && next == '/') {
      const size_t end = LineEnd(t, i);
      blank(i, end);
      i = end;
    } else if (c == '/' && next == '*') {
      const size_t end = t.find("*/", i + 2);
      if (end == kNoPosition) return *ok = false, out;
      blank(i, end + 2);
      i = end + 2;
    } else if (c == '#' && line_start) {
      const size_t end = LineEnd(t, i);
      // A block comment that starts on a directive line and ends past it: not followed.
      const size_t comment = t.substr(i, end - i).find("/*");
      if (comment != kNoPosition &&
          t.substr(i + comment, end - i - comment).find("*/") == kNoPosition) {
        return *ok = false, out;
      }
      blank(i, end);
      i = end;
    } else if (c == '"' || c == '\'') {
      const std::string_view prefix = WordBefore(t, i);
      size_t end = kNoPosition;
      if (c == '"' && !prefix.empty() && prefix.back() == 'R') {  // R"d( ... )d"
        const size_t paren = t.find('(', i);
        if (paren != kNoPosition && paren - i <= 17) {
          const std::string close = ")" + std::string(t.substr(i + 1, paren - i - 1)) + "\"";
          const size_t at = t.find(close, paren);
          if (at != kNoPosition) end = at + close.size();
        }
      } else if (c == '\'' && !prefix.empty() && IsDigit(prefix.front())) {
        ++i;  // a digit separator: 1'000'000
        line_start = false;
        continue;
      } else {
        end = LiteralEnd(t, i);
      }
      if (end == kNoPosition) return *ok = false, out;
      blank(i, end);
      i = end;
      line_start = false;
    } else {
      line_start = false;
      ++i;
    }
  }
  return out;
}

}  // namespace kb
