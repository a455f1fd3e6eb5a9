// The history.jsonl files of kbuild tune and kbuild optimize: one JSON record
// per line, appended as each attempt ends, so a kill can leave the last line
// cut short. The file is hostile input: read bounded, never through a link.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// The file's text ("" when it does not exist); exit 2 for a symlink or any
// other non-regular file, or one over kMaxResultsBytes.
Expected<std::string> ReadHistoryText(const FileSystem& fs, const std::filesystem::path& path);

// Appends `line` and a newline. A last line that `is_record` rejects was cut
// short by a kill and is dropped first (its attempt is done again); a whole
// last line that lacks its newline gets one.
Status AppendHistoryLine(FileSystem& fs, const std::filesystem::path& path, const std::string& line,
                         const std::function<bool(std::string_view)>& is_record);

struct JsonLine {
  int number;  // 1-based
  std::string_view text;
  bool last;  // the last line that is not blank: the one a kill may have cut
};

// The lines of `text` that are not blank.
std::vector<JsonLine> HistoryLines(std::string_view text);

}  // namespace kb
