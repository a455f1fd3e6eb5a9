#include "core/profile_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "test_data.h"

namespace kb {
namespace {

const char kLibrary[] = "/p/build/cmake/demo.so";
const char kPermissionDenied[] =
    "==PROF== Connected to process 4242 (/p/build/cmake/kbuild_benchmarks)\n"
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
    "Performance Counters on the target device 0.\n";

// cuobjdump answers from the recorded demo kernels; ncu with `ncu_output`.
FakeProcessRunner Runner(std::string ncu_output, int ncu_exit = 0) {
  return FakeProcessRunner([ncu_output, ncu_exit](const std::vector<std::string>& argv,
                                                  const RunOptions&) {
    if (argv[0] == "/cuda/bin/cuobjdump") {
      return ProcessResult{0, false, false,
                           ReadTestData(argv[1] == "-sass" ? "cuobjdump-sass-demo-sm90a.txt"
                                                           : "cuobjdump-res-usage-demo-sm90a.txt")};
    }
    return ProcessResult{ncu_exit, false, false, ncu_output};
  });
}

ProfileRunOptions Options(MemoryFileSystem& fs) {
  EXPECT_TRUE(fs.Write(kLibrary, "ELF").ok());
  ProfileRunOptions o;
  o.ncu = NcuLocation{"/usr/local/cuda/bin/ncu", "/usr/local/cuda"};
  o.cuobjdump = "/cuda/bin/cuobjdump";
  o.project_library = kLibrary;
  o.request.binary = "/p/build/cmake/kbuild_benchmarks";
  o.request.case_filter = "^demo/4x4 fp32(/|$)";
  o.csv = "/p/build/profile/demo_4x4_fp32.csv";
  o.log = "/p/build/logs/profile.log";
  o.context.peak_dram_gbps = 4800;
  return o;
}

TEST(ProfileRunner, SummarizesTheProjectKernelsAndPairsEachWithItsSass) {
  MemoryFileSystem fs;
  const std::string csv = ReadTestData("ncu-synthetic-good-and-bad-kernels.csv");
  FakeProcessRunner runner = Runner(csv);
  auto out = RunProfile(fs, runner, Options(fs));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_TRUE(out->ncu_ran);
  EXPECT_EQ(out->ncu_problem, "");
  ASSERT_EQ(runner.calls.size(), 3u);  // cuobjdump -sass, -res-usage, ncu
  const auto& ncu = runner.calls[2];
  EXPECT_EQ(ncu[0], "/usr/local/cuda/bin/ncu");
  EXPECT_NE(std::find(ncu.begin(), ncu.end(),
                      "regex:^(_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi|"
                      "_Z11bad_stridedP13__nv_bfloat16PKS_iii)$"),
            ncu.end());
  EXPECT_EQ(*fs.Read("/p/build/profile/demo_4x4_fp32.csv"), csv);
  EXPECT_EQ(out->harness_kernels_skipped, 1);
  ASSERT_EQ(out->kernels.size(), 2u);
  const ProfiledKernel& good = out->kernels[0];
  const ProfiledKernel& bad = out->kernels[1];
  EXPECT_EQ(good.summary.verdict, "memory-bound near peak");
  ASSERT_TRUE(good.sass);
  EXPECT_EQ(good.sass->mangled, "_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi");
  ASSERT_TRUE(bad.sass);
  EXPECT_EQ(bad.sass->local_loads, 1);
  EXPECT_NE(bad.summary.verdict.find("uncoalesced global loads"), std::string::npos);
  EXPECT_NE(bad.summary.verdict.find("local-memory traffic"), std::string::npos);
}

TEST(ProfileRunner, WithoutNcuSaysSoAndKeepsTheSass) {
  MemoryFileSystem fs;
  FakeProcessRunner runner = Runner("");
  ProfileRunOptions o = Options(fs);
  o.ncu.reset();
  o.ncu_problem = "Nsight Compute (ncu) not found: KBUILD_NCU unset, no ncu on PATH";
  auto out = RunProfile(fs, runner, o);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_FALSE(out->ncu_ran);
  EXPECT_EQ(out->ncu_problem, o.ncu_problem);
  EXPECT_NE(out->ncu_hint.find("KBUILD_NCU"), std::string::npos);
  EXPECT_TRUE(out->ncu_command.empty());
  EXPECT_EQ(runner.calls.size(), 2u);  // cuobjdump only
  ASSERT_EQ(out->sass.size(), 2u);
  EXPECT_EQ(out->sass[1].stack_bytes, 256);
}

TEST(ProfileRunner, MatchesTheSassByTheMangledNameNcuPrints) {
  MemoryFileSystem fs;
  std::string csv = ReadTestData("ncu-synthetic-good-and-bad-kernels.csv");
  const std::pair<std::string, std::string> names[] = {
      {"void demo::ScaleVec<4>(float4 *, const float4 *, float, int)",
       "_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi"},
      {"bad_strided(__nv_bfloat16 *, const __nv_bfloat16 *, int, int, int)",
       "_Z11bad_stridedP13__nv_bfloat16PKS_iii"}};
  for (const auto& [demangled, mangled] : names) {  // as --print-kernel-base mangled prints them
    for (size_t at; (at = csv.find(demangled)) != std::string::npos;) {
      csv.replace(at, demangled.size(), mangled);
    }
  }
  FakeProcessRunner runner = Runner(csv);
  auto out = RunProfile(fs, runner, Options(fs));
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->kernels.size(), 2u);
  const ProfiledKernel& good = out->kernels[0];
  EXPECT_EQ(good.summary.kernel, "void demo::ScaleVec<4>(float4*, float4 const*, float, int)");
  EXPECT_EQ(good.summary.ncu_name, "_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi");
  ASSERT_TRUE(good.sass);
  EXPECT_EQ(good.sass->mangled, good.summary.ncu_name);
  ASSERT_TRUE(out->kernels[1].sass);
  EXPECT_EQ(out->kernels[1].sass->mangled, "_Z11bad_stridedP13__nv_bfloat16PKS_iii");
}

SassFunction Sass(const std::string& mangled) {
  SassFunction f;
  f.mangled = mangled;
  f.registers = 32;  // the same for all: registers do not tell instantiations apart
  return f;
}

// rms_norm/8192x4096 bf16 on the H200 (2026-12-01): 240 instantiations of
// RmsNormRegisterKernel; ncu profiled one.
TEST(ProfileRunner, MatchSassPicksTheOneInstantiationNcuProfiled) {
  const std::vector<SassFunction> sass = {
      Sass("_ZN14kernels_common21RmsNormRegisterKernelIffLi4ELi4ELi0ELb0EEEvPT_PKS1_PKT0_"
           "liillff"),
      Sass("_ZN14kernels_common21RmsNormRegisterKernelI13__nv_bfloat16S1_Li8ELi2ELi0ELb1EEEvPT_"
           "PKS2_PKT0_liillff"),
      Sass("_ZN14kernels_common21RmsNormRegisterKernelI13__nv_bfloat16S1_Li8ELi2ELi0ELb0EEEvPT_"
           "PKS2_PKT0_liillff"),
  };
  ProfileSummary profiled;
  profiled.registers_per_thread = 32;
  profiled.ncu_name = sass[2].mangled;
  EXPECT_EQ(MatchSass(profiled, sass), &sass[2]);
  // ncu's own demangling (T1/T2 parameters, 0 for false) names no instantiation exactly.
  profiled.ncu_name =
      "void RmsNormRegisterKernel<__nv_bfloat16, __nv_bfloat16, 8, 2, 0, 0>(T1 *, const T1 *, "
      "const T2 *, long, int, int, long, long, float, float)";
  EXPECT_EQ(MatchSass(profiled, sass), nullptr);
}

TEST(ProfileRunner, MatchSassFindsTheAnonymousNamespaceKernel) {
  const std::vector<SassFunction> sass = {
      Sass("_ZN11bad_kernels47_GLOBAL__N__6cca1339_14_bad_kernels_cu_ae0c179f10CopyKernelEPfPKf"
           "lb"),
      Sass("_ZN11bad_kernels45_GLOBAL__N__afc59adf_12_slow_copy_cu_8fdd805714SlowCopyKernelEPfPK"
           "fli"),
  };
  ProfileSummary profiled;
  profiled.ncu_name = sass[1].mangled;
  EXPECT_EQ(MatchSass(profiled, sass), &sass[1]);
  profiled.ncu_name = "unnamed>::SlowCopyKernel(float *, const float *, long, int)";
  EXPECT_EQ(MatchSass(profiled, sass), &sass[1]);
}

TEST(ProfileRunner, NoGpuHintIsNotAboutInstallingNcu) {
  MemoryFileSystem fs;
  FakeProcessRunner runner = Runner("");
  ProfileRunOptions o = Options(fs);
  o.ncu.reset();
  o.ncu_problem = "no GPU: no CUDA device visible";
  o.ncu_unavailable = NcuUnavailable::kNoGpu;
  auto out = RunProfile(fs, runner, o);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->ncu_hint, NcuUnavailableHint(NcuUnavailable::kNoGpu));
  EXPECT_NE(out->ncu_hint.find("GPU"), std::string::npos);
  EXPECT_EQ(out->ncu_hint.find("install"), std::string::npos);
  EXPECT_EQ(out->ncu_hint.find("KBUILD_NCU"), std::string::npos);
}

TEST(ProfileRunner, CountersNotPermittedSaysHowToAllowThemAndFallsBack) {
  MemoryFileSystem fs;
  FakeProcessRunner runner = Runner(kPermissionDenied, 1);
  auto out = RunProfile(fs, runner, Options(fs));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_FALSE(out->ncu_ran);
  EXPECT_NE(out->ncu_problem.find("GPU performance counters are not permitted"), std::string::npos)
      << out->ncu_problem;
  EXPECT_NE(out->ncu_hint.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(out->ncu_hint.find("root"), std::string::npos);
  EXPECT_NE(out->ncu_hint.find("/p/build/profile/demo_4x4_fp32.csv"), std::string::npos);
  EXPECT_TRUE(out->kernels.empty());
  EXPECT_EQ(out->sass.size(), 2u);
}

TEST(ProfileRunner, OnlyHarnessKernelsProfiledIsAProblemNotAnEmptySummary) {
  MemoryFileSystem fs;
  const std::string csv =
      "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Section Name\","
      "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"1\",\"kbuild_spin_kernel\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"S\",\"Duration\",\"ns\","
      "\"20\"\n";
  FakeProcessRunner runner = Runner(csv);
  auto out = RunProfile(fs, runner, Options(fs));
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->ncu_ran);
  EXPECT_EQ(out->ncu_problem, "ncu profiled only the harness's own kernels");
  EXPECT_EQ(out->harness_kernels_skipped, 1);
}

TEST(ProfileRunner, NeitherNcuNorCuobjdumpIsAnEnvironmentError) {
  MemoryFileSystem fs;
  FakeProcessRunner runner = Runner("");
  ProfileRunOptions o = Options(fs);
  o.ncu.reset();
  o.ncu_problem = "Nsight Compute (ncu) not found: searched PATH";
  o.cuobjdump.clear();
  auto out = RunProfile(fs, runner, o);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(out.error().message,
            "nothing to profile with: Nsight Compute (ncu) not found: searched PATH; and "
            "cuobjdump not found (the CUDA Toolkit's bin/, or pip install nvidia-cuda-cuobjdump "
            "nvidia-cuda-nvdisasm into torch's environment)");
  EXPECT_TRUE(runner.calls.empty());
}

}  // namespace
}  // namespace kb
