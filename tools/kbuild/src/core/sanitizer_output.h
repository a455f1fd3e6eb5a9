// Reads compute-sanitizer's report out of a test's output: the error count
// of "========= ERROR SUMMARY: N errors" and the first error block (what was
// wrong, in which kernel, at which source line), without host frames.
#pragma once

#include <optional>
#include <string>

namespace kb {

// The tools kbuild test --sanitize accepts.
inline constexpr const char* kSanitizerTools[] = {"memcheck", "racecheck", "synccheck",
                                                  "initcheck"};

// The exit code compute-sanitizer is told to use when it finds errors.
inline constexpr int kSanitizerErrorExit = 99;

struct SanitizerFindings {
  int errors = 0;
  std::string first_error;  // the first block, "=========" prefixes stripped; may be empty
};

// Nothing when the output holds no ERROR SUMMARY line (the tool did not
// finish: crash or timeout).
std::optional<SanitizerFindings> ParseSanitizerOutput(const std::string& output);

}  // namespace kb
