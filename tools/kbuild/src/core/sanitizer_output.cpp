#include "core/sanitizer_output.h"

#include <cstdlib>
#include <sstream>
#include <string_view>

namespace kb {

namespace {

constexpr const char kPrefix[] = "=========";

// The text after the "=========" prefix, or nothing for other lines (the
// prefix must start the line: GoogleTest's "[==========]" is not the tool's).
std::optional<std::string> SanitizerText(const std::string& line) {
  if (!line.starts_with(kPrefix)) return std::nullopt;
  std::string rest = line.substr(sizeof(kPrefix) - 1);
  if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
  return rest;
}

// The error count of a summary line: memcheck, initcheck and synccheck end
// with "ERROR SUMMARY: N errors", racecheck with "RACECHECK SUMMARY: H hazards
// displayed (N errors, W warnings)".
std::optional<int> SummaryErrors(const std::string& text) {
  constexpr std::string_view kError = "ERROR SUMMARY:";
  constexpr std::string_view kRace = "RACECHECK SUMMARY:";
  if (text.starts_with(kError)) return std::atoi(text.c_str() + kError.size());
  if (!text.starts_with(kRace)) return std::nullopt;
  const size_t open = text.find('(', kRace.size());
  return open == std::string::npos ? 0 : std::atoi(text.c_str() + open + 1);
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
    if (auto errors = SummaryErrors(*text)) {
      found = SanitizerFindings{*errors, ""};
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
