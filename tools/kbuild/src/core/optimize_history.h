// What a `kbuild optimize` run keeps: history.jsonl, one JSON line per
// finished attempt (appended as each ends, so a kill loses at most the one in
// flight), and the score of an attempt against the baseline.
//
// A line: {"id": "a0003", "island": 1, "parent": "a0001", "origin": "proposer",
//   "repair": 0, "files": ["csrc/rms.cu"], "defines": {"BLOCK": "256"},
//   "summary": "...", "verdict": "ok", "first_error": "", "error_source": "",
//   "seconds": {"propose": 3.1, "build": 12.0, "test": 4.2, "bench": 2.0},
//   "tests_passed": 12, "score": 1.21, "cases": [{"name": ..., "median_us": ...,
//   "percent_of_peak": ..., "bytes": ...}], "cost": {"tokens": 1200, "usd": 0.02,
//   "seconds": 3.0}}
// The file is hostile input: read with the kMaxResultsBytes limit, every value
// checked; a last line cut short by a kill is dropped with a warning.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/optimize_types.h"

namespace kb {

inline constexpr const char* kOptimizeHistoryFile = "history.jsonl";

nlohmann::json AttemptJson(const Attempt& attempt);
// Nothing (and `problem` set) when the object is not a valid record.
std::optional<Attempt> AttemptFromJson(const nlohmann::json& line, std::string* problem);

// Appends one line (the whole file rewritten through FileSystem::Write, so a
// kill leaves the old or the new file; a cut last line is dropped first).
Status AppendAttempt(FileSystem& fs, const std::filesystem::path& path, const Attempt& attempt);

struct OptimizeHistory {
  std::vector<Attempt> attempts;  // in order; a later line for an id replaces the earlier
  std::vector<std::string> warnings;
};

// An absent file is an empty history; an invalid line other than the last is
// an exit-2 error naming the file and line.
Expected<OptimizeHistory> ReadAttempts(const FileSystem& fs, const std::filesystem::path& path);

// The geometric mean over the baseline's performance cases of baseline median
// / attempt median (tune's RankVariants); 0 with `why` set when a case is
// missing or the attempt has no times.
double ScoreAgainst(const Attempt& baseline, const Attempt& attempt, std::string* why);

}  // namespace kb
