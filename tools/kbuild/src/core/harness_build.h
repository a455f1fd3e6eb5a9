// What kbuild test and kbuild bench do before running anything: prepare the
// build (build_pipeline.h), check that the project has tests/benchmarks and
// that a GPU is visible (before compiling: no GPU is exit 4 in seconds, not
// after minutes of compiling), then build the harness target (exit 3 on a
// compile error).
#pragma once

#include <functional>
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
  bool measure_peak = false;            // bench: measure copy bandwidth when not cached
  std::optional<std::string> env_peak;  // KBUILD_PEAK_BW_GBPS from the environment
  std::function<void(const std::string&)> progress;
  // Called after the GPU check, before compiling (e.g. to check --compare's file).
  std::function<Status(const PreparedBuild&)> before_build;
};

struct HarnessBuild {
  PreparedBuild prepared;
  HarnessTarget target;
  RunGpu gpu;
  std::vector<std::string> warnings;
};

Expected<HarnessBuild> BuildHarness(FileSystem& fs, ProcessRunner& runner,
                                    const HarnessBuildOptions& options);

}  // namespace kb
