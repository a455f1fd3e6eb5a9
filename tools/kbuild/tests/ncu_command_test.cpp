#include "core/ncu_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace kb {
namespace {

NcuSearch Search(std::map<std::string, std::string> env, std::set<std::string> files,
                 std::optional<std::string> on_path = std::nullopt) {
  NcuSearch s;
  s.get_env = [env](const std::string& name) -> std::optional<std::string> {
    const auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  s.find_on_path = [on_path](const std::string&) -> std::optional<std::filesystem::path> {
    return on_path ? std::optional<std::filesystem::path>(*on_path) : std::nullopt;
  };
  s.is_file = [files](const std::filesystem::path& p) { return files.count(p.string()) > 0; };
  return s;
}

TEST(NcuCommand, FindsNcuInTheDocumentedOrder) {
  const std::set<std::string> all = {"/opt/ncu", "/cuda/bin/ncu", "/usr/local/cuda/bin/ncu"};
  auto found =
      FindNcu(Search({{"KBUILD_NCU", "/opt/ncu"}, {"CUDA_HOME", "/cuda"}}, all, "/bin/ncu"));
  EXPECT_EQ(found.ncu->path, "/opt/ncu");
  EXPECT_EQ(found.ncu->found_by, "KBUILD_NCU");
  found = FindNcu(Search({{"CUDA_HOME", "/cuda"}}, all, "/bin/ncu"));
  EXPECT_EQ(found.ncu->found_by, "PATH");
  found = FindNcu(Search({{"CUDA_HOME", "/cuda"}}, all));
  EXPECT_EQ(found.ncu->path, "/cuda/bin/ncu");
  EXPECT_EQ(found.ncu->found_by, "CUDA_HOME");
  found = FindNcu(Search({}, all));
  EXPECT_EQ(found.ncu->path, "/usr/local/cuda/bin/ncu");
}

TEST(NcuCommand, FindsCuobjdumpInTheToolkitOnPathOrBesideTorch) {
  const std::string site = "/venv/lib/python3.11/site-packages";
  const std::set<std::string> all = {"/cuda/bin/cuobjdump", site + "/nvidia/cu13/bin/cuobjdump",
                                     site + "/nvidia/cuda_cuobjdump/bin/cuobjdump"};
  EXPECT_EQ(FindCuobjdump("/cuda/bin", site + "/torch", "13", Search({}, all, "/usr/bin/x")),
            "/cuda/bin/cuobjdump");
  EXPECT_EQ(FindCuobjdump("/other/bin", site + "/torch", "13", Search({}, all, "/usr/bin/x")),
            "/usr/bin/x");
  EXPECT_EQ(FindCuobjdump("/other/bin", site + "/torch", "13", Search({}, all)),
            site + "/nvidia/cu13/bin/cuobjdump");
  EXPECT_EQ(FindCuobjdump("/other/bin", site + "/torch", "12", Search({}, all)),
            site + "/nvidia/cuda_cuobjdump/bin/cuobjdump");
  EXPECT_EQ(FindCuobjdump("/other/bin", site + "/torch", "13", Search({}, {})), "");
  EXPECT_EQ(FindCuobjdump("/other/bin", "", "13", Search({}, all)), "");
}

TEST(NcuCommand, SaysWhatWasSearchedWhenNcuIsMissing) {
  auto missing = FindNcu(Search({{"CUDA_HOME", "/cuda"}}, {}));
  EXPECT_FALSE(missing.ncu);
  EXPECT_EQ(missing.problem,
            "Nsight Compute (ncu) not found: KBUILD_NCU unset, no ncu on PATH, no /cuda/bin/ncu, "
            "no /usr/local/cuda/bin/ncu");
  // A wrong KBUILD_NCU is reported, not silently replaced by another ncu.
  auto wrong = FindNcu(Search({{"KBUILD_NCU", "/nope"}}, {"/usr/local/cuda/bin/ncu"}));
  EXPECT_FALSE(wrong.ncu);
  EXPECT_EQ(wrong.problem, "KBUILD_NCU=/nope is not a file");
}

size_t IndexOf(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) - argv.begin();
}

TEST(NcuCommand, DefaultSetProfilesTheProjectKernelsOfOneCase) {
  NcuRequest r;
  r.ncu = "/usr/local/cuda/bin/ncu";
  r.binary = "/my project/build/cmake/kbuild_benchmarks";
  r.case_filter = "^rms_norm/8192x4096 bf16(/|$)";
  r.project_kernels = {"_Z11bad_stridedP13__nv_bfloat16PKS_iii",
                       "_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_fi"};
  const auto argv = NcuCommand(r);
  ASSERT_GE(argv.size(), 10u);
  EXPECT_EQ(argv[0], "/usr/local/cuda/bin/ncu");
  EXPECT_EQ(std::vector<std::string>(argv.begin() + 1, argv.begin() + 13),
            (std::vector<std::string>{"--csv", "--page", "details", "--print-units", "base",
                                      "--clock-control", "none", "--target-processes", "all",
                                      "--print-kernel-base", "mangled", "--section"}));
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--section"), 6);
  EXPECT_EQ(IndexOf(argv, "--set"), argv.size());
  const size_t metrics = IndexOf(argv, "--metrics");
  ASSERT_LT(metrics + 1, argv.size());
  EXPECT_TRUE(argv[metrics + 1].starts_with("gpu__time_duration.sum,"));
  EXPECT_TRUE(argv[metrics + 1].ends_with(
      ",regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio$"));
  const size_t base = IndexOf(argv, "--kernel-name-base");
  ASSERT_LT(base + 3, argv.size());
  EXPECT_EQ(argv[base + 1], "mangled");
  EXPECT_EQ(argv[base + 2], "--kernel-name");
  EXPECT_EQ(argv[base + 3],
            "regex:^(_Z11bad_stridedP13__nv_bfloat16PKS_iii|_ZN4demo8ScaleVecILi4EEEvP6float4PKS1_"
            "fi)$");
  // One argv element each: a path with a space and the filter with a space need no quoting.
  EXPECT_EQ(
      std::vector<std::string>(argv.end() - 7, argv.end()),
      (std::vector<std::string>{
          "--launch-skip", "3", "--launch-count", "1", "/my project/build/cmake/kbuild_benchmarks",
          "--benchmark_color=false", "--benchmark_filter=^rms_norm/8192x4096 bf16(/|$)"}));
}

TEST(NcuCommand, FullSetAndAKernelRegexReplaceTheDefaults) {
  NcuRequest r;
  r.ncu = "ncu";
  r.binary = "b";
  r.case_filter = "^a/1(/|$)";
  r.metric_set = "full";
  r.kernel_regex = "RmsNorm.*";
  r.project_kernels = {"_Z1kv"};  // ignored: the user's regex wins
  r.launch_skip = 0;
  r.launch_count = 2;
  const auto argv = NcuCommand(r);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--section"), 0);
  const size_t set = IndexOf(argv, "--set");
  ASSERT_LT(set + 1, argv.size());
  EXPECT_EQ(argv[set + 1], "full");
  EXPECT_EQ(IndexOf(argv, "--kernel-name-base"), argv.size());
  EXPECT_EQ(argv[IndexOf(argv, "--kernel-name") + 1], "regex:RmsNorm.*");
  EXPECT_EQ(argv[IndexOf(argv, "--launch-skip") + 1], "0");
  EXPECT_EQ(argv[IndexOf(argv, "--launch-count") + 1], "2");
}

TEST(NcuCommand, RecognisesHarnessKernelsAndThePermissionError) {
  EXPECT_TRUE(IsHarnessKernel("kbuild_spin_kernel"));
  EXPECT_TRUE(IsHarnessKernel("kbuild_empty_kernel"));
  EXPECT_FALSE(IsHarnessKernel("void demo::ScaleVec<4>(float4 *, const float4 *, float, int)"));
  EXPECT_TRUE(CountersNotPermitted(
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
      "Performance Counters on the target device 0."));
  EXPECT_FALSE(CountersNotPermitted("==PROF== Disconnected from process 1"));
}

}  // namespace
}  // namespace kb
