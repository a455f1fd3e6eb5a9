// Runs a kernel project's benchmark binary the way kbuild bench does: one
// child process with a timeout, the harness told where to write its document
// (KBUILD_BENCH_JSON), the peak bandwidth, graph mode and launch counts; the
// document read back even when the process failed part-way (the harness
// rewrites it after every case).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"

namespace kb {

struct BenchRunOptions {
  std::filesystem::path binary;            // build/cmake/kbuild_benchmarks
  std::filesystem::path json_file;         // build/bench-results/bench-<timestamp>.json
  std::filesystem::path log;               // build/logs/bench.log
  std::optional<std::string> filter;       // Google Benchmark regex (--benchmark_filter)
  bool graph = false;                      // KBUILD_BENCH_GRAPH=1
  bool no_baselines = false;               // KBUILD_BENCH_NO_BASELINES=1: the op alone
  std::optional<int> warmup;               // KBUILD_BENCH_WARMUP
  std::optional<int> iterations;           // KBUILD_BENCH_ITERS
  double timeout_seconds = 600;            // the whole binary
  std::map<std::string, std::string> env;  // e.g. KBUILD_PEAK_BW_GBPS
  std::filesystem::path project_library;   // KBUILD_PROJECT_LIBRARY for the harness
};

struct BenchRunOutcome {
  nlohmann::json document;  // kbuild-harness-bench/1
  // Why the process did not finish cleanly though some cases were measured
  // ("timed out after 600 s", "crashed with SIGSEGV"); empty when it did.
  // A non-zero exit because a case failed is not a problem here: the cases say why.
  std::string problem;
};

std::vector<std::string> BenchCommand(const BenchRunOptions& options);
std::map<std::string, std::string> BenchEnvironment(const BenchRunOptions& options);

// Exit 1 when the binary died before writing any result (with its last
// output lines), exit 2 when it rejected the arguments.
Expected<BenchRunOutcome> RunBenchmarks(FileSystem& fs, ProcessRunner& runner,
                                        const BenchRunOptions& options);

// Warnings when the document's launch counts differ from what was asked
// (the harness did not honor --warmup / --iters).
std::vector<std::string> LaunchCountWarnings(const nlohmann::json& document,
                                             const BenchRunOptions& options);

}  // namespace kb
