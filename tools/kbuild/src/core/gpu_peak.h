// The GPU that kbuild test and bench run on, and the bandwidth that counts
// as 100% for it: the device-to-device copy bandwidth doctor measured once
// and cached per GPU (KBUILD_CACHE_DIR/gpu-<uuid>.json), measured through the
// same probe when the cache has none. No usable GPU is an environment error
// (exit 4), found before anything is built.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/gpu_probe.h"
#include "core/process.h"

namespace kb {

struct RunGpu {
  GpuInfo gpu;                      // the first visible GPU: the harness runs on device 0
  std::optional<double> peak_gbps;  // measured copy bandwidth, read + write
  std::string peak_source;          // "KBUILD_PEAK_BW_GBPS", "kbuild doctor (<cache file>)" or ""
};

// `command` is "test" or "bench" (named in the message). With
// request.bench the copy bandwidth is measured when not cached.
// `env_peak` is KBUILD_PEAK_BW_GBPS from the environment, which wins.
Expected<RunGpu> RequireGpu(FileSystem& fs, ProcessRunner& runner, const GpuProbeRequest& request,
                            const std::string& command, const std::optional<std::string>& env_peak);

// The environment that hands the peak to the harness (docs/harness.md):
// KBUILD_PEAK_BW_GBPS when kbuild knows it; empty when the user set it or
// nobody knows it (the harness then measures it itself).
std::map<std::string, std::string> PeakEnvironment(const RunGpu& gpu);

}  // namespace kb
