#include "core/markdown_blocks.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace kb {

namespace {

struct Fence {
  char ch = '`';
  size_t length = 0;
  std::string info;
};

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// A fence opens or closes a block: up to 3 spaces, then 3+ '`' or '~'.
std::optional<Fence> ParseFence(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~'))
    return std::nullopt;
  Fence f;
  f.ch = line[i];
  while (i < line.size() && line[i] == f.ch) ++i, ++f.length;
  if (f.length < 3) return std::nullopt;
  f.info = Trim(line.substr(i));
  // A backtick fence's info string may not hold backticks (that is inline
  // code).
  if (f.ch == '`' && f.info.find('`') != std::string::npos) return std::nullopt;
  return f;
}

bool ClosesFence(std::string_view line, const Fence& open) {
  auto f = ParseFence(line);
  return f && f->ch == open.ch && f->length >= open.length && f->info.empty();
}

std::string LanguageOf(const std::string& info) {
  std::string word = info.substr(0, info.find_first_of(" \t{"));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return word;
}

// Target of "[text](target "title")" starting just after "](": stops at the
// matching ')' and drops an optional title and <angle brackets>.
std::string LinkTarget(std::string_view rest) {
  int depth = 0;
  size_t end = 0;
  for (; end < rest.size(); ++end) {
    if (rest[end] == '(') ++depth;
    if (rest[end] == ')' && depth-- == 0) break;
  }
  std::string target = Trim(rest.substr(0, end));
  if (!target.empty() && target.front() == '<') {
    size_t close = target.find('>');
    return target.substr(
        1, close == std::string::npos ? std::string::npos : close - 1);
  }
  return target.substr(0, target.find_first_of(" \t"));
}

// "[label]: target" reference definitions.
std::optional<MarkdownLink> ReferenceDefinition(std::string_view line,
                                                int line_no) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || line[i] != '[') return std::nullopt;
  size_t close = line.find("]:", i);
  if (close == std::string_view::npos || line.find(']', i) != close)
    return std::nullopt;
  size_t start = close + 2;
  while (start < line.size() && line[start] == ' ') ++start;
  if (start >= line.size()) return std::nullopt;
  MarkdownLink link;
  link.target = LinkTarget(line.substr(start));
  link.line = line_no;
  link.column = static_cast<int>(start) + 1;
  return link;
}

// Inline code spans and links of one line outside fenced blocks.
void ScanInline(std::string_view line, int line_no, MarkdownDocument& doc) {
  if (auto def = ReferenceDefinition(line, line_no)) {
    doc.links.push_back(*def);
    return;
  }
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '`') {
      size_t run = 0;
      while (i + run < line.size() && line[i + run] == '`') ++run;
      std::string ticks(run, '`');
      size_t close = line.find(ticks, i + run);
      // The closing run must be exactly as long as the opening one.
      while (close != std::string_view::npos && close + run < line.size() &&
             line[close + run] == '`') {
        close = line.find(ticks, close + run + 1);
      }
      if (close == std::string_view::npos) {
        i += run;
        continue;
      }
      doc.inline_code.push_back({Trim(line.substr(i + run, close - i - run)),
                                 line_no, static_cast<int>(i) + 1});
      i = close + run;
      continue;
    }
    if (line.compare(i, 2, "](") == 0) {
      size_t start = i + 2;
      while (start < line.size() && line[start] == ' ') ++start;
      std::string target = LinkTarget(line.substr(start));
      if (!target.empty()) {
        doc.links.push_back({target, line_no, static_cast<int>(start) + 1});
      }
      i = start;
      continue;
    }
    ++i;
  }
}

}  // namespace

MarkdownDocument ParseMarkdown(std::string_view text) {
  MarkdownDocument doc;
  std::optional<Fence> open;
  CodeBlock block;
  std::string previous_line;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(
        pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;

    if (open) {
      if (ClosesFence(line, *open)) {
        doc.blocks.push_back(std::move(block));
        open.reset();
      } else {
        block.code.append(line).append("\n");
      }
    } else if (auto fence = ParseFence(line)) {
      open = fence;
      block = CodeBlock{};
      block.language = LanguageOf(fence->info);
      block.line = line_no;
      block.fragment = Trim(previous_line) == "<!-- fragment -->";
    } else {
      ScanInline(line, line_no, doc);
    }
    previous_line = std::string(line);
  }
  if (open) doc.blocks.push_back(std::move(block));
  return doc;
}

bool IsExternalOrAnchorLink(std::string_view target) {
  if (target.empty() || target.front() == '#') return true;
  size_t colon = target.find(':');
  if (colon == std::string_view::npos) return false;
  // A scheme is letters (and + - .) before the colon: "https:", "mailto:".
  return std::all_of(target.begin(), target.begin() + static_cast<long>(colon),
                     [](char c) {
                       return std::isalpha(static_cast<unsigned char>(c)) ||
                              c == '+' || c == '-' || c == '.';
                     }) &&
         colon > 1;
}

}  // namespace kb
