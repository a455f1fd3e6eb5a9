#include "core/message_text.h"

#include <algorithm>

namespace kb {

namespace {
constexpr std::string_view kEllipsis = "...";
}  // namespace

std::string CutForMessage(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  // Cut before a UTF-8 continuation byte's lead, never inside a character (at most 3 bytes back).
  size_t cut = max;
  for (int back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80;
       ++back)
    --cut;
  return std::string(text.substr(0, cut)) + std::string(kEllipsis);
}

std::string OneLine(std::string_view text, size_t max) {
  std::string out = CutForMessage(text, max);
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) c = ' ';
  }
  return out;
}

std::string ForTerminal(std::string_view text) {
  std::string out(text);
  for (size_t i = 0; i < out.size(); ++i) {
    const auto byte = static_cast<unsigned char>(out[i]);
    if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f) {
      out[i] = ' ';
    } else if (byte == 0xc2 && i + 1 < out.size() &&
               static_cast<unsigned char>(out[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(out[i + 1]) <= 0x9f) {
      out[i] = out[i + 1] = ' ';
    }
  }
  return out;
}

LineWindow WindowAround(std::string_view line, int column, size_t max) {
  if (line.size() <= max) return {std::string(line), column};
  // Keep the column a third of the way in, so the text before it shows too.
  const size_t at = column > 0 ? static_cast<size_t>(column - 1) : 0;
  const size_t start = std::min(at > max / 3 ? at - max / 3 : 0, line.size() - max);
  LineWindow w;
  if (start > 0) w.text = kEllipsis;
  w.text += line.substr(start, max);
  if (start + max < line.size()) w.text += kEllipsis;
  w.column = column > 0 ? static_cast<int>(at - start + (start > 0 ? kEllipsis.size() : 0) + 1) : 0;
  return w;
}

}  // namespace kb
