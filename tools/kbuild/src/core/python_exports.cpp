#include "core/python_exports.h"

#include <regex>

#include "core/message_text.h"

namespace kb {

std::vector<std::string> PythonAllNames(const std::string& source) {
  static const std::regex kAll(R"re((^|\n)__all__\s*=\s*[\[(]([^\])]*)[\])])re");
  static const std::regex kName(R"re(["']([A-Za-z_][A-Za-z0-9_]*)["'])re");
  std::smatch all;
  if (!std::regex_search(source, all, kAll)) return {};
  const std::string list = all[2].str();
  std::vector<std::string> names;
  for (std::sregex_iterator it(list.begin(), list.end(), kName), end; it != end; ++it) {
    names.push_back((*it)[1].str());
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
