// GPU facts for kbuild doctor (and the copy bandwidth bench reads): a tiny
// CUDA program (resources/gpu_probe.cu) compiled once into the cache dir,
// run, and its JSON parsed. The measured copy bandwidth is cached per GPU in
// <cache>/gpu-<uuid>.json so it is measured once per machine.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"

namespace kb {

struct GpuInfo {
  int index = 0;
  std::string name;
  std::string uuid;        // "GPU-xxxxxxxx-..."
  std::string capability;  // "9.0"
  int sm_count = 0;
  long long l2_bytes = 0;
  long long shared_mem_per_block_optin = 0;
  long long memory_bytes = 0;
  int memory_bus_bits = 0;
  double theoretical_gbps = 0;  // from bus width and memory clock
  int sm_clock_khz = 0;         // the SMs' boost clock; 0 = not reported (older probe)
  double fp32_tflops = 0;       // theoretical fp32 CUDA-core peak (harness physics.h); 0 = unknown
  std::optional<double> copy_gbps;  // measured D2D copy, read + write
};

struct GpuProbeResult {
  std::string driver_cuda_version;  // highest CUDA the driver supports, "13.0"
  std::string error;                // why no GPU is usable (empty when fine)
  std::vector<GpuInfo> gpus;
};

// Parses the probe's JSON line (exit 5 when it is not the expected shape).
Expected<GpuProbeResult> ParseGpuProbeOutput(const std::string& output);

nlohmann::json GpuInfoToJson(const GpuInfo& gpu);

struct GpuProbeRequest {
  std::filesystem::path nvcc;
  std::string nvcc_build;           // part of the binary's cache key
  std::filesystem::path cache_dir;  // KBUILD_CACHE_DIR
  std::string probe_source;         // resources/gpu_probe.cu
  bool bench = true;                // measure copy bandwidth when not cached
};

// Compiles the probe when needed, runs it, fills copy_gbps from the per-GPU
// cache or by measuring (then caches it). A failing probe is not an error:
// it is reported in GpuProbeResult::error (no GPU on a dev machine is normal).
Expected<GpuProbeResult> ProbeGpus(FileSystem& fs, ProcessRunner& runner,
                                   const GpuProbeRequest& request);

// <cache>/gpu-<uuid>.json: {"name", "uuid", "copy_gbps"}.
std::filesystem::path GpuCacheFile(const std::filesystem::path& cache_dir, const std::string& uuid);

}  // namespace kb
