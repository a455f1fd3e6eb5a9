#include "core/toml_location.h"

#include <string>

#include "core/message_text.h"

namespace kb {

SourceText::SourceText(std::string display_path, std::string_view text)
    : path_(std::move(display_path)) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines_.push_back(std::move(line));
    start = end + 1;
  }
}

std::string_view SourceText::Line(int line) const {
  if (line < 1 || line > line_count()) return {};
  return lines_[line - 1];
}

std::string SourceText::Excerpt(SourceLocation at) const {
  if (at.line < 1 || at.line > line_count()) return {};
  const std::string number = std::to_string(at.line);
  const std::string gutter(number.size() + 1, ' ');
  const LineWindow window = WindowAround(Line(at.line), at.column);
  std::string out = " " + number + " | " + window.text + "\n";
  if (at.column < 1) return out;
  // Copy tabs from the source line so the caret lines up in a terminal.
  std::string pad;
  const std::string_view text = window.text;
  for (int i = 0; i + 1 < window.column; ++i) {
    pad += (static_cast<size_t>(i) < text.size() && text[i] == '\t') ? '\t' : ' ';
  }
  return out + gutter + " | " + pad + "^\n";
}

Error SourceText::ErrorAt(ExitCode code, SourceLocation at, std::string message,
                          std::string hint) const {
  // Messages quote keys and values from the file: cut, so a huge one cannot flood them.
  Error e = MakeError(code, CutForMessage(message, kMaxMessageChars),
                      CutForMessage(hint, kMaxMessageChars));
  e.path = path_;
  e.line = at.line;
  e.column = at.line > 0 ? at.column : 0;
  e.detail = Excerpt(at);
  return e;
}

}  // namespace kb
