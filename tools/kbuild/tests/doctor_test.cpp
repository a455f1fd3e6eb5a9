#include <gtest/gtest.h>

#include "core/doctor_checks.h"
#include "core/gpu_probe.h"

namespace kb {
namespace {

constexpr const char* kNoGpu =
    R"({"driver_cuda_version": "0.0", "error": "CUDA driver version is insufficient for CUDA )"
    R"(runtime version", "devices": []})"
    "\n";
constexpr const char* kH200 =
    R"({"driver_cuda_version": "13.0", "devices": [{"index": 0, "name": "NVIDIA H200", )"
    R"("uuid": "GPU-1234", "capability": "9.0", "sm_count": 132, "l2_bytes": 62914560, )"
    R"("shared_mem_per_block_optin": 232448, "memory_bytes": 150000000000, "memory_bus_bits": 6144, )"
    R"("memory_clock_khz": 3201000, "sm_clock_khz": 1980000)";

struct FakeMachine {
  std::string probe_answer = kNoGpu;
  std::string torch_answer =
      R"({"version": "2.11.0+cu130", "cuda": "13.0", "cxx11_abi": true, "torch_dir": "/t", )"
      R"("cmake_prefix_path": "/t/share/cmake"})";
  int bench_runs = 0;

  ProcessResult operator()(const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    const std::string& program = argv[0];
    if (program.ends_with("nvcc") && argv[1] == "--version") {
      r.output = "Cuda compilation tools, release 13.0, V13.0.88\n";
    } else if (program.ends_with("nvcc")) {
      r.output = "";  // compiles the probe
    } else if (program.ends_with("python3")) {
      r.output = torch_answer;
    } else if (program.find("gpu_probe-") != std::string::npos) {
      const bool bench = argv.size() > 1 && argv[1] == "--bench";
      bench_runs += bench;
      r.output = probe_answer == kNoGpu
                     ? probe_answer
                     : probe_answer + (bench ? ", \"copy_gbps\": 4273.0" : "") + "}]}\n";
    } else {
      r.output = program + " version 1.0\n";
    }
    return r;
  }
};

DoctorOptions Options() {
  DoctorOptions o;
  o.cache_dir = "/cache";
  o.probe_source = "int main() {}";
  o.torch_search.project_dir = "/p";
  o.torch_search.get_env = [](const std::string&) { return std::nullopt; };
  o.torch_search.find_on_path = [](const std::string& p) -> std::optional<std::filesystem::path> {
    return "/usr/bin/" + p;
  };
  o.cuda_search.get_env = [](const std::string&) { return std::nullopt; };
  o.cuda_search.find_on_path = [](const std::string&) { return std::nullopt; };
  return o;
}

const DoctorCheck* Find(const DoctorResult& r, const std::string& name) {
  for (const auto& c : r.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(Doctor, NoGpuIsReportedButNotAFailure) {
  MemoryFileSystem fs;
  FakeMachine machine;
  FakeProcessRunner runner(std::ref(machine));
  const DoctorResult r = RunDoctor(fs, runner, Options());
  EXPECT_EQ(r.exit, ExitCode::kOk);
  const DoctorCheck* gpu = Find(r, "gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->level, CheckLevel::kInfo);
  EXPECT_EQ(gpu->summary,
            "no GPU (builds work; tests/benchmarks need one) (CUDA driver version is insufficient "
            "for CUDA runtime version)");
  EXPECT_EQ(Find(r, "nvcc")->summary, "CUDA 13.0 (V13.0.88) at /usr/local/cuda/bin/nvcc");
  EXPECT_EQ(Find(r, "cuda-match")->level, CheckLevel::kOk);
}

TEST(Doctor, RequireGpuMakesNoGpuExit4) {
  MemoryFileSystem fs;
  FakeMachine machine;
  FakeProcessRunner runner(std::ref(machine));
  DoctorOptions o = Options();
  o.require_gpu = true;
  const DoctorResult r = RunDoctor(fs, runner, o);
  EXPECT_EQ(r.exit, ExitCode::kEnvironment);
  EXPECT_EQ(Find(r, "gpu")->level, CheckLevel::kProblem);
}

TEST(Doctor, CudaMajorMismatchIsAWarningWithHint) {
  MemoryFileSystem fs;
  FakeMachine machine;
  machine.torch_answer =
      R"({"version": "2.8.0+cu128", "cuda": "12.8", "cxx11_abi": true, "torch_dir": "/t"})";
  FakeProcessRunner runner(std::ref(machine));
  const DoctorResult r = RunDoctor(fs, runner, Options());
  EXPECT_EQ(r.exit, ExitCode::kOk);
  const DoctorCheck* match = Find(r, "cuda-match");
  EXPECT_EQ(match->level, CheckLevel::kWarning);
  EXPECT_EQ(match->summary, "torch cu12.8 vs nvcc 13.0: CUDA majors differ");
  EXPECT_NE(match->hint.find("builds compile and link"), std::string::npos);
}

TEST(Doctor, MissingTorchIsExit4) {
  MemoryFileSystem fs;
  FakeMachine machine;
  machine.torch_answer = "No module named 'torch'";
  FakeProcessRunner runner([&machine](const std::vector<std::string>& argv, const RunOptions& o) {
    ProcessResult r = machine(argv, o);
    if (argv[0].ends_with("python3")) r.exit_code = 1;
    return r;
  });
  const DoctorResult r = RunDoctor(fs, runner, Options());
  EXPECT_EQ(r.exit, ExitCode::kEnvironment);
  EXPECT_EQ(Find(r, "torch")->level, CheckLevel::kProblem);
}

TEST(Doctor, CopyBandwidthIsMeasuredOnceAndCachedPerGpu) {
  MemoryFileSystem fs;
  FakeMachine machine;
  machine.probe_answer = kH200;
  FakeProcessRunner runner(std::ref(machine));
  DoctorResult r = RunDoctor(fs, runner, Options());
  EXPECT_EQ(r.exit, ExitCode::kOk);
  EXPECT_EQ(r.data["gpus"][0]["copy_gbps"], 4273.0);
  EXPECT_EQ(Find(r, "gpu")->summary,
            "NVIDIA H200, sm_90, 132 SMs, 150 GB, theoretical 4917 GB/s, fp32 66.9 TFLOP/s, "
            "measured copy 4273 GB/s");
  EXPECT_NEAR(r.data["gpus"][0]["fp32_tflops"].get<double>(), 66.9, 0.05);
  EXPECT_TRUE(fs.Exists(GpuCacheFile("/cache", "GPU-1234")));
  r = RunDoctor(fs, runner, Options());
  EXPECT_EQ(r.data["gpus"][0]["copy_gbps"], 4273.0);
  EXPECT_EQ(machine.bench_runs, 1);
}

TEST(Doctor, ParsesDriverVersion) {
  EXPECT_EQ(ParseDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159  Tue Oct"),
            "580.159");
  EXPECT_EQ(ParseDriverVersion(""), "");
}

}  // namespace
}  // namespace kb
