// What kbuild test and kbuild bench do before running anything: prepare the
// build (build_pipeline.h), check that the project has tests/benchmarks,
// build the harness target (exit 3 on a compile error), then check that a
// GPU is visible (exit 4): compiling first makes a broken test or benchmark
// show on a machine without a GPU. With build_only (--build-only) there is
// no GPU check: the binaries are compiled here and run on a GPU machine
// later (kbuild tune compiles each variant's while the GPU is busy).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/build_pipeline.h"
#include "core/gpu_peak.h"
#include "core/harness_targets.h"

namespace kb {

struct HarnessBuildOptions {
  PipelineOptions pipeline;
  HarnessKind kind = HarnessKind::kTests;
  int jobs = 0;
  bool verbose = false;
  bool build_only = false;              // compile and link only: no GPU check
  bool measure_peak = false;            // bench: measure copy bandwidth when not cached
  std::optional<std::string> env_peak;  // KBUILD_PEAK_BW_GBPS from the environment
  std::function<void(const std::string&)> progress;
  // Called after the GPU check, before compiling (e.g. to check --compare's file).
  std::function<Status(const PreparedBuild&)> before_build;
};

struct HarnessBuild {
  PreparedBuild prepared;
  HarnessTarget target;
  BuildOutcome outcome;
  RunGpu gpu;  // empty with build_only
  std::vector<std::string> warnings;
};

Expected<HarnessBuild> BuildHarness(FileSystem& fs, ProcessRunner& runner,
                                    const HarnessBuildOptions& options);

// The one line `--build-only` ends with: "built build/cmake/kbuild_tests
// (compile 2 files, link: 14.1 s)", the binary relative to the project.
std::string BuiltHarnessLine(const HarnessBuild& built);

// The keys `--build-only --json` adds to the document (references/kbuild-output.md):
// build_only, target, binary, compiled, linked, configured, build_seconds, log.
nlohmann::json BuiltHarnessToJson(const HarnessBuild& built);

}  // namespace kb
