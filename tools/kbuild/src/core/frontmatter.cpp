#include "core/frontmatter.h"

#include <cctype>

#include "core/toml_location.h"

namespace kb {

namespace {

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return lines;
}

std::string TrimRight(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

size_t Indent(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

bool IsKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

// Removes matching quotes; in double quotes, \" and \\ are unescaped.
std::string Unquote(const std::string& v) {
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
    std::string out;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
      out += v[i];
      if (v[i] == '\'' && v[i + 1] == '\'') ++i;  // '' is one quote in YAML
    }
    return out;
  }
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
      if (v[i] == '\\' && i + 2 < v.size()) ++i;
      out += v[i];
    }
    return out;
  }
  return v;
}

// Joins the indented lines of a block scalar: '|' keeps line breaks, '>'
// folds them into spaces. Chomping ('-', '+') only affects the trailing break.
std::string JoinBlock(const std::vector<std::string>& lines, bool literal,
                      bool strip) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0)
      out += (literal || lines[i].empty() || lines[i - 1].empty()) ? "\n" : " ";
    out += lines[i];
  }
  if (!strip && !out.empty()) out += "\n";
  return out;
}

}  // namespace

const FrontmatterField* Frontmatter::Find(std::string_view key) const {
  for (const auto& f : fields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

Expected<Frontmatter> ParseFrontmatter(std::string_view text,
                                       const std::string& display_path) {
  const auto lines = SplitLines(text);
  const SourceText source(display_path, text);
  auto error = [&source](int line, int column, std::string message,
                         std::string hint) {
    return source.ErrorAt(ExitCode::kUsage, {line, column}, std::move(message),
                          std::move(hint));
  };
  if (lines.empty() || TrimRight(lines[0]) != "---") {
    return error(
        1, 1, "missing frontmatter: the file must start with '---'",
        "start the file with '---', then 'name: ...' and 'description: ...', "
        "then '---'");
  }
  Frontmatter fm;
  size_t i = 1;
  for (; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    const std::string line = TrimRight(lines[i]);
    if (line == "---") break;
    if (line.empty() || line[0] == '#') continue;
    size_t key_end = 0;
    while (key_end < line.size() && IsKeyChar(line[key_end])) ++key_end;
    if (key_end == 0 || key_end >= line.size() || line[key_end] != ':') {
      return error(
          line_no, static_cast<int>(key_end) + 1,
          "expected 'key: value' in the frontmatter",
          "write one 'key: value' per line; long values can use 'key: >-' "
          "followed by indented lines");
    }
    FrontmatterField field;
    field.key = line.substr(0, key_end);
    field.line = line_no;
    if (fm.Find(field.key)) {
      return error(line_no, 1, "duplicate key '" + field.key + "'",
                   "keep one '" + field.key + ":' line");
    }
    std::string value = line.substr(key_end + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (!value.empty() && (value[0] == '>' || value[0] == '|')) {
      const bool literal = value[0] == '|';
      const bool strip = value.find('-') != std::string::npos;
      std::vector<std::string> block;
      size_t indent = 0;
      while (i + 1 < lines.size()) {
        const std::string next = TrimRight(lines[i + 1]);
        if (!next.empty() && Indent(next) == 0) break;
        if (!next.empty() && indent == 0) indent = Indent(next);
        block.push_back(
            next.empty() ? "" : next.substr(std::min(indent, Indent(next))));
        ++i;
      }
      while (!block.empty() && block.back().empty()) block.pop_back();
      field.value = JoinBlock(block, literal, strip);
    } else {
      field.value = Unquote(value);
    }
    fm.fields.push_back(std::move(field));
  }
  if (i >= lines.size()) {
    return error(1, 1, "the frontmatter is not closed",
                 "end the frontmatter with a line holding only '---'");
  }
  fm.body_line = static_cast<int>(i) + 2;
  return fm;
}

}  // namespace kb
