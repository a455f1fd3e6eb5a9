#include "core/text_table.h"

#include <algorithm>

namespace kb {

namespace {

size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // count UTF-8 lead bytes only
  return n;
}

void AppendRow(const TableRow& row, const std::vector<size_t>& widths, std::string* out) {
  std::string line;
  for (size_t i = 0; i < widths.size(); ++i) {
    const std::string cell = i < row.size() ? row[i] : "";
    line += cell;
    if (i + 1 < widths.size()) line += std::string(widths[i] - DisplayWidth(cell) + 2, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  *out += line + "\n";
}

}  // namespace

std::string RenderTable(const TableRow& header, const std::vector<TableRow>& rows) {
  std::vector<size_t> widths(header.size(), 0);
  for (size_t i = 0; i < header.size(); ++i) widths[i] = DisplayWidth(header[i]);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  std::string out;
  AppendRow(header, widths, &out);
  TableRow rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  AppendRow(rule, widths, &out);
  for (const auto& row : rows) AppendRow(row, widths, &out);
  return out;
}

}  // namespace kb
