#include "core/gpu_probe.h"

#include <cstdio>

#include "core/json_fields.h"
#include "core/report.h"
#include "core/sha256.h"
#include "kbuild/harness/physics.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

// The formula `kbuild bench` measures fp32 cases against (BenchSpec::compute_unit).
double Fp32PeakTflops(const GpuInfo& g) {
  harness::GpuClockFacts facts;
  if (std::sscanf(g.capability.c_str(), "%d.%d", &facts.major, &facts.minor) != 2) return 0;
  facts.sm_count = g.sm_count;
  facts.clock_khz = g.sm_clock_khz;
  return harness::TheoreticalPeakTflops(harness::ComputeUnit::kFp32CudaCores, facts);
}

// From the probe's memory clock and bus width, by the harness's formula (the
// one its impossibility check uses).
double DramGbps(const nlohmann::json& device) {
  harness::GpuClockFacts facts;
  facts.memory_clock_khz = NumberOr(device, "memory_clock_khz");
  facts.memory_bus_bits = IntegerOr(device, "memory_bus_bits");
  return harness::TheoreticalDramGbps(facts);
}

}  // namespace

nlohmann::json GpuInfoToJson(const GpuInfo& g) {
  nlohmann::json j = {{"index", g.index},
                      {"name", g.name},
                      {"uuid", g.uuid},
                      {"capability", g.capability},
                      {"sm_count", g.sm_count},
                      {"l2_bytes", g.l2_bytes},
                      {"shared_mem_per_block_optin", g.shared_mem_per_block_optin},
                      {"memory_bytes", g.memory_bytes},
                      {"memory_bus_bits", g.memory_bus_bits},
                      {"theoretical_gbps", g.theoretical_gbps},
                      {"sm_clock_khz", g.sm_clock_khz},
                      {"fp32_tflops", g.fp32_tflops}};
  j["copy_gbps"] = g.copy_gbps ? nlohmann::json(*g.copy_gbps) : nlohmann::json(nullptr);
  return j;
}

Expected<GpuProbeResult> ParseGpuProbeOutput(const std::string& output) {
  const size_t start = output.find('{');
  const auto doc = ParseUntrustedJson(start == std::string::npos ? "" : output.substr(start));
  if (!doc.is_object() || !doc.contains("devices") || !doc["devices"].is_array()) {
    Error e = MakeError(ExitCode::kInternal, "the GPU probe printed something unexpected",
                        "delete the cached probe (KBUILD_CACHE_DIR/gpu_probe-*) and run kbuild "
                        "doctor again");
    e.detail = output.substr(0, 500);
    return e;
  }
  GpuProbeResult r;
  r.driver_cuda_version = StringOr(doc, "driver_cuda_version");
  r.error = StringOr(doc, "error");
  for (const auto& d : ArrayAt(doc, "devices")) {
    GpuInfo g;
    g.index = IntegerOr(d, "index");
    g.name = StringOr(d, "name");
    g.uuid = StringOr(d, "uuid");
    g.capability = StringOr(d, "capability");
    g.sm_count = IntegerOr(d, "sm_count");
    g.l2_bytes = IntegerOr<long long>(d, "l2_bytes");
    g.shared_mem_per_block_optin = IntegerOr<long long>(d, "shared_mem_per_block_optin");
    g.memory_bytes = IntegerOr<long long>(d, "memory_bytes");
    g.memory_bus_bits = IntegerOr(d, "memory_bus_bits");
    g.theoretical_gbps = DramGbps(d);
    g.sm_clock_khz = IntegerOr(d, "sm_clock_khz");
    g.fp32_tflops = Fp32PeakTflops(g);
    if (d.contains("copy_gbps") && d["copy_gbps"].is_number() && d["copy_gbps"].get<double>() > 0) {
      g.copy_gbps = d["copy_gbps"].get<double>();
    }
    r.gpus.push_back(g);
  }
  return r;
}

fs::path GpuCacheFile(const fs::path& cache_dir, const std::string& uuid) {
  return cache_dir / ("gpu-" + uuid + ".json");
}

namespace {

Expected<fs::path> EnsureProbeBinary(FileSystem& fs, ProcessRunner& runner,
                                     const GpuProbeRequest& r) {
  // A new probe source or a new nvcc gets a new binary; old ones are harmless.
  const std::string key = Sha256Hex(r.probe_source + "\n" + r.nvcc_build).substr(0, 12);
  const fs::path binary = r.cache_dir / ("gpu_probe-" + key);
  if (fs.Exists(binary)) return binary;
  const fs::path source = r.cache_dir / ("gpu_probe-" + key + ".cu");
  if (Status s = fs.Write(source, r.probe_source); !s) return s.error();
  RunOptions options;
  options.timeout_seconds = 300;
  const ProcessResult c =
      runner.Run({r.nvcc.string(), "-O2", "-o", binary.string(), source.string()}, options);
  if (c.exit_code != 0) {
    Error e = MakeError(
        ExitCode::kEnvironment, "cannot compile the GPU probe with " + r.nvcc.string(),
        "check that nvcc can compile a plain .cu file: nvcc -o /tmp/t " + source.string());
    e.detail = c.output.substr(0, 2000);
    return e;
  }
  return binary;
}

std::optional<double> CachedCopyBandwidth(const FileSystem& fs, const fs::path& cache_dir,
                                          const GpuInfo& gpu) {
  auto text = fs.ReadAtMost(GpuCacheFile(cache_dir, gpu.uuid), kMaxResultsBytes);
  if (!text) return std::nullopt;
  const auto doc = ParseUntrustedJson(*text);
  if (!doc.is_object() || StringOr(doc, "name") != gpu.name || !doc["copy_gbps"].is_number()) {
    return std::nullopt;
  }
  return doc["copy_gbps"].get<double>();
}

}  // namespace

Expected<GpuProbeResult> ProbeGpus(FileSystem& fs, ProcessRunner& runner,
                                   const GpuProbeRequest& r) {
  auto binary = EnsureProbeBinary(fs, runner, r);
  if (!binary) return binary.error();
  RunOptions options;
  options.timeout_seconds = 120;
  const ProcessResult first = runner.Run({binary->string()}, options);
  if (first.exit_code != 0) {
    GpuProbeResult failed;
    failed.error = "GPU probe exited with code " + std::to_string(first.exit_code) + ": " +
                   first.output.substr(0, 300);
    return failed;
  }
  auto result = ParseGpuProbeOutput(first.output);
  if (!result) return result;
  bool need_bench = false;
  for (auto& gpu : result->gpus) {
    gpu.copy_gbps = CachedCopyBandwidth(fs, r.cache_dir, gpu);
    need_bench = need_bench || !gpu.copy_gbps;
  }
  if (!r.bench || !need_bench) return result;

  const ProcessResult bench = runner.Run({binary->string(), "--bench"}, options);
  auto measured = ParseGpuProbeOutput(bench.output);
  if (bench.exit_code != 0 || !measured) return result;  // keep the properties we have
  for (auto& gpu : result->gpus) {
    for (const auto& m : measured->gpus) {
      if (m.uuid != gpu.uuid || !m.copy_gbps || gpu.copy_gbps) continue;
      gpu.copy_gbps = m.copy_gbps;
      const nlohmann::json cache = {{"name", gpu.name},
                                    {"uuid", gpu.uuid},
                                    {"copy_gbps", *m.copy_gbps},
                                    {"method",
                                     "cudaMemcpy D2D 1 GiB, CUDA events, median of 20, "
                                     "read+write bytes"}};
      (void)fs.Write(GpuCacheFile(r.cache_dir, gpu.uuid), JsonText(cache) + "\n");
    }
  }
  return result;
}

}  // namespace kb
