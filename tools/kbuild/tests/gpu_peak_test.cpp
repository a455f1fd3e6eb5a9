#include "core/gpu_peak.h"

#include <gtest/gtest.h>

#include "core/harness_targets.h"

namespace kb {

namespace {

GpuProbeRequest Request(bool bench) {
  return {"/cuda/bin/nvcc", "V13.0.88", "/cache", "probe", bench};
}

// nvcc compiles the probe; the probe answers `probe_output` (and `bench_output` with --bench).
FakeProcessRunner::Handler Probe(std::string probe_output, std::string bench_output = "") {
  return [=](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r{0, false, false, ""};
    if (argv[0] != "/cuda/bin/nvcc") r.output = argv.size() > 1 ? bench_output : probe_output;
    return r;
  };
}

constexpr const char* kH200 =
    R"({"driver_cuda_version": "13.0", "devices": [{"index": 0, "name": "NVIDIA H200", )"
    R"("uuid": "GPU-1", "capability": "9.0"}]})";

TEST(GpuPeak, NoGpuIsAnEnvironmentErrorNamingTheCommand) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(Probe(
      R"({"driver_cuda_version": "0.0", "error": "no CUDA-capable device is detected", "devices": []})"));
  auto gpu = RequireGpu(fs, runner, Request(false), "test", std::nullopt);
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(
      gpu.error().message,
      "kbuild test needs a CUDA GPU, and none is visible (no CUDA-capable device is detected)");
  EXPECT_EQ(gpu.error().hint,
            "the binaries compiled, so the sources are fine; run it on a machine with an NVIDIA "
            "GPU (copy the project there and run `kbuild test`); `kbuild doctor --require-gpu` "
            "checks a machine; "
            "CUDA_VISIBLE_DEVICES must not hide every GPU");
}

TEST(GpuPeak, UsesDoctorsCachedCopyBandwidth) {
  MemoryFileSystem fs;
  (void)fs.Write("/cache/gpu-GPU-1.json",
                 R"({"name": "NVIDIA H200", "uuid": "GPU-1", "copy_gbps": 4273.4})");
  FakeProcessRunner runner(Probe(kH200));
  auto gpu = RequireGpu(fs, runner, Request(true), "bench", std::nullopt);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  EXPECT_EQ(gpu->gpu.name, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(*gpu->peak_gbps, 4273.4);
  EXPECT_EQ(PeakEnvironment(*gpu),
            (std::map<std::string, std::string>{{"KBUILD_PEAK_BW_GBPS", "4273.4"}}));
  EXPECT_EQ(runner.calls.size(), 2u);  // compile + probe; no measurement
}

TEST(GpuPeak, MeasuresThroughTheDoctorProbeWhenNotCached) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(Probe(
      kH200,
      R"({"devices": [{"index": 0, "name": "NVIDIA H200", "uuid": "GPU-1", "copy_gbps": 4200.0}]})"));
  auto gpu = RequireGpu(fs, runner, Request(true), "bench", std::nullopt);
  ASSERT_TRUE(gpu.ok());
  EXPECT_DOUBLE_EQ(*gpu->peak_gbps, 4200.0);
  EXPECT_TRUE(fs.Exists("/cache/gpu-GPU-1.json"));
}

TEST(GpuPeak, EnvironmentOverrideWinsAndIsNotPassedTwice) {
  MemoryFileSystem fs;
  FakeProcessRunner runner(Probe(kH200));
  auto gpu = RequireGpu(fs, runner, Request(false), "bench", std::string("3000"));
  ASSERT_TRUE(gpu.ok());
  EXPECT_DOUBLE_EQ(*gpu->peak_gbps, 3000);
  EXPECT_TRUE(PeakEnvironment(*gpu).empty());  // the child inherits it
  auto bad = RequireGpu(fs, runner, Request(false), "bench", std::string("fast"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ExitCode::kUsage);
  EXPECT_EQ(bad.error().message, "KBUILD_PEAK_BW_GBPS='fast' is not a positive number");
}

TEST(HarnessTargets, ProjectWithoutTestsIsBadUsage) {
  CMakePlan plan;
  plan.harness_cmake = "/k/tools/harness/harness.cmake";
  plan.benchmark_sources = {"/p/benchmarks/a_bench.cpp"};
  const BuildPaths paths = MakeBuildPaths("/p");
  auto tests = FindHarnessTarget(plan, paths, HarnessKind::kTests);
  ASSERT_FALSE(tests.ok());
  EXPECT_EQ(tests.error().code, ExitCode::kUsage);
  EXPECT_EQ(tests.error().message, "no tests: the project has no tests/*.cpp");
  auto bench = FindHarnessTarget(plan, paths, HarnessKind::kBenchmarks);
  ASSERT_TRUE(bench.ok());
  EXPECT_EQ(bench->binary, "/p/build/cmake/kbuild_benchmarks");
  EXPECT_EQ(bench->log, "/p/build/logs/bench.log");
  plan.harness_cmake.reset();
  EXPECT_EQ(FindHarnessTarget(plan, paths, HarnessKind::kBenchmarks).error().code,
            ExitCode::kEnvironment);
}

}  // namespace
}  // namespace kb
