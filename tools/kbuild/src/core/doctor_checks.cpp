#include "core/doctor_checks.h"

#include <fmt/format.h>

#include <cstdio>
#include <regex>

#include "core/gpu_probe.h"
#include "core/variant.h"

namespace kb {

namespace fs = std::filesystem;

const char* CheckLevelName(CheckLevel level) {
  switch (level) {
    case CheckLevel::kOk:
      return "ok";
    case CheckLevel::kInfo:
      return "info";
    case CheckLevel::kWarning:
      return "warning";
    case CheckLevel::kProblem:
      return "problem";
  }
  return "?";
}

std::string ParseDriverVersion(const std::string& text) {
  static const std::regex re(R"(Kernel Module\s+([0-9][0-9.]*))");
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : "";
}

namespace {

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string Gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f GB", bytes / 1e9);
  return buf;
}

std::string Gbps(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f GB/s", v);
  return buf;
}

void CheckTool(ProcessRunner& runner, const std::string& name, const std::string& install_hint,
               CheckLevel missing_level, DoctorResult& out) {
  RunOptions options;
  options.timeout_seconds = 30;
  const ProcessResult r = runner.Run({name, "--version"}, options);
  if (r.not_found || r.exit_code != 0) {
    out.checks.push_back({name, missing_level, "not found", install_hint});
    out.data["tools"][name] = nullptr;
    return;
  }
  out.checks.push_back({name, CheckLevel::kOk, FirstLine(r.output), ""});
  out.data["tools"][name] = FirstLine(r.output);
}

void CheckGpus(FileSystem& fs, ProcessRunner& runner, const DoctorOptions& o, const CudaEnv& cuda,
               DoctorResult& out) {
  GpuProbeRequest request{cuda.nvcc, cuda.build, o.cache_dir, o.probe_source, o.bench};
  auto probe = ProbeGpus(fs, runner, request);
  out.data["gpus"] = nlohmann::json::array();
  if (!probe) {
    out.checks.push_back({"gpu", CheckLevel::kWarning, probe.error().message, probe.error().hint});
    return;
  }
  if (!probe->driver_cuda_version.empty() && probe->driver_cuda_version != "0.0") {
    out.data["driver_cuda_version"] = probe->driver_cuda_version;
  }
  if (probe->gpus.empty()) {
    const std::string why = probe->error.empty() ? "" : " (" + probe->error + ")";
    if (o.require_gpu) {
      out.checks.push_back(
          {"gpu", CheckLevel::kProblem, "no GPU" + why,
           "run on a machine with an NVIDIA GPU and its driver; check nvidia-smi"});
      out.exit = ExitCode::kEnvironment;
    } else {
      out.checks.push_back(
          {"gpu", CheckLevel::kInfo, "no GPU (builds work; tests/benchmarks need one)" + why, ""});
    }
    return;
  }
  for (const GpuInfo& g : probe->gpus) {
    std::string summary = g.name + ", sm_" + g.capability.substr(0, g.capability.find('.')) +
                          g.capability.substr(g.capability.find('.') + 1) + ", " +
                          std::to_string(g.sm_count) + " SMs, " + Gb(double(g.memory_bytes)) +
                          ", theoretical " + Gbps(g.theoretical_gbps);
    if (g.fp32_tflops > 0) summary += fmt::format(", fp32 {:.1f} TFLOP/s", g.fp32_tflops);
    summary += g.copy_gbps ? ", measured copy " + Gbps(*g.copy_gbps)
                           : std::string(", copy bandwidth not measured (run without --no-bench)");
    out.checks.push_back({"gpu", CheckLevel::kOk, summary, ""});
    out.data["gpus"].push_back(GpuInfoToJson(g));
  }
}

void CheckCudaMatch(const TorchEnv& torch, const CudaEnv& cuda, DoctorResult& out) {
  auto t = ParseMajorMinor(torch.cuda);
  auto n = ParseMajorMinor(cuda.version);
  if (torch.cuda.empty()) {
    out.checks.push_back({"cuda-match", CheckLevel::kProblem, "torch has no CUDA (CPU-only build)",
                          "install a CUDA build of torch: python3 -m pip install torch"});
    out.exit = ExitCode::kEnvironment;
  } else if (t && n && t->major != n->major) {
    out.checks.push_back(
        {"cuda-match", CheckLevel::kWarning,
         "torch cu" + torch.cuda + " vs nvcc " + cuda.version + ": CUDA majors differ",
         "builds compile and link, but kernels and torch use different CUDA runtimes; install a "
         "torch built for CUDA " +
             std::to_string(n->major) + " or set CUDA_HOME to a CUDA " + std::to_string(t->major) +
             " toolkit"});
  } else {
    out.checks.push_back(
        {"cuda-match", CheckLevel::kOk, "torch CUDA " + torch.cuda + ", nvcc " + cuda.version, ""});
  }
}

}  // namespace

// The kernel module's version file, else nvidia-smi: sandboxed GPU machines (gVisor, microVMs)
// often hide /proc/driver/nvidia while the driver works.
static std::string DetectDriverVersion(FileSystem& fs, ProcessRunner& runner) {
  if (const auto text = fs.Read("/proc/driver/nvidia/version")) {
    if (std::string v = ParseDriverVersion(*text); !v.empty()) return v;
  }
  RunOptions options;
  options.timeout_seconds = 20;
  const ProcessResult r =
      runner.Run({"nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"}, options);
  if (r.exit_code != 0 || r.not_found) return "";
  return FirstLine(r.output);
}

DoctorResult RunDoctor(FileSystem& fs, ProcessRunner& runner, const DoctorOptions& o) {
  DoctorResult out;
  const std::string driver = DetectDriverVersion(fs, runner);
  out.data["driver"] = driver.empty() ? nlohmann::json(nullptr) : nlohmann::json(driver);
  out.checks.push_back({"driver", driver.empty() ? CheckLevel::kInfo : CheckLevel::kOk,
                        driver.empty() ? "no NVIDIA driver loaded" : "NVIDIA driver " + driver,
                        ""});

  auto cuda = DiscoverCuda(runner, o.cuda_search);
  if (cuda) {
    out.checks.push_back(
        {"nvcc", CheckLevel::kOk,
         "CUDA " + cuda->version + " (" + cuda->build + ") at " + cuda->nvcc.string(), ""});
    out.data["cuda"] = CudaEnvToJson(*cuda);
  } else {
    out.checks.push_back({"nvcc", CheckLevel::kProblem, cuda.error().message, cuda.error().hint});
    out.exit = ExitCode::kEnvironment;
  }

  auto torch = DiscoverTorch(fs, runner, o.torch_search);
  if (torch) {
    out.checks.push_back({"torch", CheckLevel::kOk,
                          "torch " + torch->version + " (CUDA " +
                              (torch->cuda.empty() ? "none" : torch->cuda) + ", " +
                              (torch->cxx11_abi ? "cxx11" : "pre-cxx11") + " ABI) at " +
                              torch->torch_dir.string(),
                          ""});
    out.data["torch"] = TorchEnvToJson(*torch);
  } else {
    out.checks.push_back(
        {"torch", CheckLevel::kProblem, torch.error().message, torch.error().hint});
    out.exit = ExitCode::kEnvironment;
  }
  if (cuda && torch) CheckCudaMatch(*torch, *cuda, out);

  if (cuda) {
    CheckGpus(fs, runner, o, *cuda, out);
  } else {
    out.checks.push_back({"gpu", CheckLevel::kInfo, "not probed (needs nvcc)", ""});
  }

  CheckTool(runner, "cmake", "install CMake >= 3.22: apt-get install cmake (or pip install cmake)",
            CheckLevel::kProblem, out);
  CheckTool(runner, "ninja", "install Ninja: apt-get install ninja-build (or pip install ninja)",
            CheckLevel::kProblem, out);
  CheckTool(runner, "ccache",
            "optional: apt-get install ccache makes rebuilds of unchanged files instant",
            CheckLevel::kInfo, out);
  for (const char* tool : {"cmake", "ninja"}) {
    if (out.data["tools"][tool].is_null() && out.exit == ExitCode::kOk)
      out.exit = ExitCode::kEnvironment;
  }
  return out;
}

}  // namespace kb
