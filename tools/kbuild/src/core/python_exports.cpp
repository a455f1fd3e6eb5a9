#include "core/python_exports.h"

#include <cctype>
#include <string_view>

#include "core/message_text.h"

namespace kb {

// Scanned by hand: std::regex's matching recurses per character, and an __init__.py of
// 200,000 spaces overflowed the stack.
std::vector<std::string> PythonAllNames(const std::string& source) {
  constexpr std::string_view kAll = "__all__";
  const auto space = [&](size_t at) {
    while (at < source.size() && std::isspace(static_cast<unsigned char>(source[at]))) ++at;
    return at;
  };
  std::string list;
  bool found = false;
  for (size_t at = source.find(kAll); at != std::string::npos && !found;
       at = source.find(kAll, at + 1)) {
    if (at > 0 && source[at - 1] != '\n') continue;  // only at the start of a line
    size_t p = space(at + kAll.size());
    if (p >= source.size() || source[p] != '=') continue;
    p = space(p + 1);
    if (p >= source.size() || (source[p] != '[' && source[p] != '(')) continue;
    const size_t close = source.find_first_of("])", p + 1);
    if (close == std::string::npos) continue;
    list = source.substr(p + 1, close - p - 1);
    found = true;
  }
  // The quoted identifiers of the list ("b c" is none).
  const auto quote = [](char c) { return c == '"' || c == '\''; };
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!quote(list[i]) || i + 1 >= list.size() ||
        !(std::isalpha(static_cast<unsigned char>(list[i + 1])) || list[i + 1] == '_')) {
      continue;
    }
    size_t end = i + 1;
    while (end < list.size() && word(list[end])) ++end;
    if (end < list.size() && quote(list[end])) {
      names.push_back(list.substr(i + 1, end - i - 1));
      i = end;
    }
  }
  return names;
}

std::string PythonDocstringFirstLine(const std::string& source) {
  size_t start = source.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return "";
  for (const char* quote : {"\"\"\"", "'''"}) {
    if (source.compare(start, 3, quote) != 0) continue;
    const size_t end = source.find(quote, start + 3);
    if (end == std::string::npos) return "";
    const std::string body = source.substr(start + 3, end - start - 3);
    size_t at = 0;
    while (at < body.size()) {
      const size_t eol = body.find('\n', at);
      std::string line = body.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
      const size_t first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos) return OneLine(line.substr(first));
      if (eol == std::string::npos) break;
      at = eol + 1;
    }
    return "";
  }
  return "";
}

}  // namespace kb
