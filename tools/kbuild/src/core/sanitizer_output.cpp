#include "core/sanitizer_output.h"

#include <cstdlib>
#include <sstream>

namespace kb {

namespace {

constexpr const char kPrefix[] = "=========";

// The text after the "=========" prefix, or nothing for other lines.
std::optional<std::string> SanitizerText(const std::string& line) {
  const size_t at = line.find(kPrefix);
  if (at == std::string::npos) return std::nullopt;
  std::string rest = line.substr(at + sizeof(kPrefix) - 1);
  if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
  return rest;
}

}  // namespace

std::optional<SanitizerFindings> ParseSanitizerOutput(const std::string& output) {
  std::optional<SanitizerFindings> found;
  std::string block;
  bool in_block = false, block_done = false;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    auto text = SanitizerText(line);
    if (!text) continue;
    if (text->starts_with("ERROR SUMMARY:")) {
      found = SanitizerFindings{std::atoi(text->c_str() + 14), ""};
      continue;
    }
    if (block_done || text->starts_with("COMPUTE-SANITIZER")) continue;
    const bool blank = text->find_first_not_of(' ') == std::string::npos;
    const bool indented = !text->empty() && text->front() == ' ';
    if (!in_block) {
      if (!blank && !indented) {
        in_block = true;
        block = *text + "\n";
      }
      continue;
    }
    if (blank || !indented) {
      block_done = true;
      continue;
    }
    // Host frames are long and rarely help; the device location comes first.
    if (text->find("Host Frame") != std::string::npos ||
        text->find("Saved host backtrace") != std::string::npos) {
      continue;
    }
    const size_t first = text->find_first_not_of(' ');
    block += "  " + text->substr(first) + "\n";
  }
  if (found) found->first_error = block;
  return found;
}

}  // namespace kb
