#include "core/profile_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace kb {
namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(KBUILD_TEST_DATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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
                           ReadFixture(argv[1] == "-sass" ? "cuobjdump-sass-demo-sm90a.txt"
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
  const std::string csv = ReadFixture("ncu-synthetic-good-and-bad-kernels.csv");
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
  EXPECT_EQ(good.sass_candidates, 1);
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
            "cuobjdump not found (it ships with the CUDA Toolkit: bin/cuobjdump)");
  EXPECT_TRUE(runner.calls.empty());
}

}  // namespace
}  // namespace kb
