#include "core/render.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/suggest.h"

namespace kb {

namespace {

constexpr std::string_view kOpen = "{{";
constexpr std::string_view kClose = "}}";

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Fills 1-based line and column of `offset` in `text` into `e`.
void Locate(Error& e, std::string_view text, size_t offset, const std::string& path) {
  e.path = path;
  e.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
  const size_t newline = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  e.column = static_cast<int>(offset - line_start) + 1;
}

std::vector<std::string> Names(const RenderVars& vars) {
  std::vector<std::string> names;
  for (const auto& [name, _] : vars) names.push_back(name);
  return names;
}

Status CheckNothingSurvived(std::string_view rendered, const std::string& path) {
  const size_t at = rendered.find(kOpen);
  if (at == std::string_view::npos) return {};
  Error e = MakeError(ExitCode::kInternal, "'{{' left after rendering",
                      "a template may use '{{' only for a placeholder written without spaces, "
                      "like {{python_name}}; fix the template file");
  Locate(e, rendered, at, path);
  return e;
}

}  // namespace

Expected<std::string> RenderText(std::string_view text, const RenderVars& vars,
                                 const std::string& display_path) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find(kOpen, pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find(kClose, open + kOpen.size());
    const std::string_view word =
        close == std::string_view::npos
            ? std::string_view{}
            : text.substr(open + kOpen.size(), close - open - kOpen.size());
    if (!IsIdentifier(word)) {
      // Not a placeholder; it survives and is reported below with its location.
      out.append(text.substr(pos, open + kOpen.size() - pos));
      pos = open + kOpen.size();
      continue;
    }
    auto it = vars.find(std::string(word));
    if (it == vars.end()) {
      Error e = MakeError(ExitCode::kUsage, "unknown placeholder '{{" + std::string(word) + "}}'",
                          SuggestionHint(word, Names(vars)));
      Locate(e, text, open, display_path);
      return e;
    }
    out.append(text.substr(pos, open - pos));
    out.append(it->second);
    pos = close + kClose.size();
  }
  if (pos < text.size()) out.append(text.substr(pos));
  if (Status s = CheckNothingSurvived(out, display_path); !s) return s.error();
  return out;
}

Expected<std::filesystem::path> RenderPath(const std::filesystem::path& relative,
                                           const RenderVars& vars) {
  std::filesystem::path out;
  const std::string display = relative.generic_string();
  for (const auto& part : relative) {
    Expected<std::string> rendered = RenderText(part.string(), vars, display);
    if (!rendered) {
      Error e = rendered.error();
      e.line = e.column = 0;  // a position inside one path component misleads
      return e;
    }
    out /= *rendered;
  }
  return out;
}

bool LooksBinary(std::string_view content) {
  return content.substr(0, 8000).find('\0') != std::string_view::npos;
}

}  // namespace kb
