#include "core/history_lines.h"

namespace kb {

namespace {

bool Blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

}  // namespace

Expected<std::string> ReadHistoryText(const FileSystem& fs, const std::filesystem::path& path) {
  const FileKind kind = fs.KindOf(path);
  if (kind == FileKind::kMissing) return std::string();
  if (kind != FileKind::kRegular) return NotRegularFileError(path, kind);
  return fs.ReadAtMost(path, kMaxResultsBytes);
}

Status AppendHistoryLine(FileSystem& fs, const std::filesystem::path& path, const std::string& line,
                         const std::function<bool(std::string_view)>& is_record) {
  auto text = ReadHistoryText(fs, path);
  if (!text) return text.error();
  std::string content = std::move(*text);
  const size_t tail = content.rfind('\n') == std::string::npos ? 0 : content.rfind('\n') + 1;
  if (tail < content.size()) {
    if (is_record(std::string_view(content).substr(tail))) {
      content += '\n';
    } else {
      content.resize(tail);  // cut short by a kill: that attempt is done again
    }
  }
  content += line + "\n";
  if (content.size() > kMaxResultsBytes) return FileTooLargeError(path, kMaxResultsBytes);
  return fs.Write(path, content);
}

std::vector<JsonLine> HistoryLines(std::string_view text) {
  std::vector<JsonLine> lines;
  int number = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    ++number;
    const std::string_view line = text.substr(at, end - at);
    if (!Blank(line)) lines.push_back({number, line, false});
    at = end + 1;
  }
  if (!lines.empty()) lines.back().last = true;
  return lines;
}

}  // namespace kb
