#include "core/render.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "core/suggest.h"

namespace kb {

namespace {

constexpr std::string_view kOpen = "{{";
constexpr std::string_view kClose = "}}";

bool IsIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A placeholder-shaped span at `open`: "{{" [spaces] identifier [spaces] "}}".
struct Placeholder {
  std::string_view word;
  size_t end = 0;       // one past the closing "}}"
  bool spaced = false;  // "{{ name }}": looks like a placeholder but is not one
};

std::optional<Placeholder> MatchPlaceholder(std::string_view text, size_t open) {
  size_t i = open + kOpen.size();
  auto skip_spaces = [&] {
    const size_t from = i;
    while (i < text.size() && text[i] == ' ') ++i;
    return i != from;
  };
  Placeholder p;
  p.spaced = skip_spaces();
  const size_t word_begin = i;
  if (i >= text.size() || !IsIdentifierStart(text[i])) return std::nullopt;
  while (i < text.size() && IsIdentifierChar(text[i])) ++i;
  p.word = text.substr(word_begin, i - word_begin);
  p.spaced = skip_spaces() || p.spaced;
  if (text.substr(i, kClose.size()) != kClose) return std::nullopt;
  p.end = i + kClose.size();
  return p;
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

// The safety net: nothing placeholder-shaped may reach the project.
Status CheckNothingSurvived(std::string_view rendered, const std::string& path) {
  for (size_t at = rendered.find(kOpen); at != std::string_view::npos;
       at = rendered.find(kOpen, at + 1)) {
    std::optional<Placeholder> p = MatchPlaceholder(rendered, at);
    if (!p) continue;
    Error e =
        MakeError(ExitCode::kInternal,
                  "'" + std::string(rendered.substr(at, p->end - at)) + "' left after rendering",
                  "write placeholders without spaces, like {{python_name}}; fix the template file");
    Locate(e, rendered, at, path);
    return e;
  }
  return {};
}

}  // namespace

Expected<std::string> RenderText(std::string_view text, const RenderVars& vars,
                                 const std::string& display_path) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;  // text before `pos` is in `out`
  for (size_t open = text.find(kOpen); open != std::string_view::npos;
       open = text.find(kOpen, open + 1)) {
    if (open < pos) continue;  // inside a placeholder just replaced
    std::optional<Placeholder> p = MatchPlaceholder(text, open);
    if (!p || p->spaced) continue;  // not ours (C++ brace init), or caught below
    auto it = vars.find(std::string(p->word));
    if (it == vars.end()) {
      Error e =
          MakeError(ExitCode::kUsage, "unknown placeholder '{{" + std::string(p->word) + "}}'",
                    SuggestionHint(p->word, Names(vars)));
      Locate(e, text, open, display_path);
      return e;
    }
    out.append(text.substr(pos, open - pos));
    out.append(it->second);
    pos = p->end;
  }
  out.append(text.substr(pos));
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
