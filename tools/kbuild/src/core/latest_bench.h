// The project's newest `kbuild bench` result, results/latest.json (written by
// results_writer.h), read back for the Hub card of `kbuild package`. The file
// is hostile input: a regular file (no symlink on the way), bounded in size,
// a valid benchmark document; anything else is reported, never guessed at.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/bench_results.h"
#include "core/fs.h"
#include "core/results_writer.h"

namespace kb {

inline constexpr const char* kLatestBenchFile = "results/latest.json";

struct LatestBench {
  BenchTable table;
  RunMetadata run;
};

struct LatestBenchRead {
  std::optional<LatestBench> bench;  // none when absent or unusable
  std::string problem;               // why an existing file was not used ("" = absent or fine)
};

LatestBenchRead ReadLatestBench(const FileSystem& fs, const std::filesystem::path& project);

}  // namespace kb
