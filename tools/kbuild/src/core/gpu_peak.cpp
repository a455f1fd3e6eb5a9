#include "core/gpu_peak.h"

#include <cstdio>
#include <cstdlib>

namespace kb {

namespace {

Error NoGpu(const std::string& command, const std::string& why) {
  return MakeError(ExitCode::kEnvironment,
                   "kbuild " + command + " needs a CUDA GPU, and none is visible" +
                       (why.empty() ? "" : " (" + why + ")"),
                   "the binaries compiled, so the sources are fine; run it on a machine with an "
                   "NVIDIA GPU (copy the project there and run `kbuild " +
                       command +
                       "`); `kbuild doctor --require-gpu` checks a machine; "
                       "CUDA_VISIBLE_DEVICES must not hide every GPU");
}

}  // namespace

Expected<RunGpu> RequireGpu(FileSystem& fs, ProcessRunner& runner, const GpuProbeRequest& request,
                            const std::string& command,
                            const std::optional<std::string>& env_peak) {
  auto probe = ProbeGpus(fs, runner, request);
  if (!probe) return probe.error();
  if (probe->gpus.empty()) return NoGpu(command, probe->error);
  RunGpu run;
  run.gpu = probe->gpus.front();
  if (env_peak) {
    char* end = nullptr;
    const double value = std::strtod(env_peak->c_str(), &end);
    if (end == env_peak->c_str() || *end != '\0' || value <= 0) {
      return MakeError(ExitCode::kUsage,
                       "KBUILD_PEAK_BW_GBPS='" + *env_peak + "' is not a positive number",
                       "give GB/s, e.g. KBUILD_PEAK_BW_GBPS=4273, or unset it to use the "
                       "bandwidth kbuild doctor measured");
    }
    run.peak_gbps = value;
    run.peak_source = "KBUILD_PEAK_BW_GBPS";
  } else if (run.gpu.copy_gbps) {
    run.peak_gbps = run.gpu.copy_gbps;
    run.peak_source =
        "kbuild doctor (" + GpuCacheFile(request.cache_dir, run.gpu.uuid).string() + ")";
  }
  return run;
}

std::map<std::string, std::string> PeakEnvironment(const RunGpu& gpu) {
  if (!gpu.peak_gbps || gpu.peak_source == "KBUILD_PEAK_BW_GBPS") return {};
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", *gpu.peak_gbps);
  return {{"KBUILD_PEAK_BW_GBPS", buf}};
}

}  // namespace kb
