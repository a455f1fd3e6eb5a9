#include "core/cmake_gen.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TorchEnv FakeTorch() {
  TorchEnv t;
  t.version = "2.11.0+cu130";
  t.cuda = "13.0";
  t.torch_dir = "/venv/torch";
  t.found_by = "python";
  return t;
}

ProjectConfig FakeConfig() {
  ProjectConfig c;
  c.root = "/p";
  c.name = "my-op";
  KernelConfig k;
  k.name = "my_op";
  k.backend = "cuda";
  k.src = {"my_op_cuda/my_op.cu", "my_op_cuda/my_op.cuh"};
  k.include = {"include"};
  k.cuda_capabilities = {"9.0"};
  c.kernels.push_back(k);
  TorchConfig t;
  t.src = {"torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"};
  c.torch = t;
  return c;
}

std::string Render(const ProjectConfig& config, const GenerateOptions& options,
                   const FileSystem& fs = MemoryFileSystem()) {
  auto plan = PlanFromConfig(config, fs, FakeTorch(), "_my_op_cuda_0123abcd",
                             "/p/build/cmake/include", options);
  EXPECT_TRUE(plan.ok());
  auto text = RenderCMakeLists(*plan);
  EXPECT_TRUE(text.ok());
  return *text;
}

// The text between "add_library(<target>" and the next blank line.
std::string Section(const std::string& text, const std::string& start) {
  const size_t a = text.find(start);
  if (a == std::string::npos) return {};
  return text.substr(a, text.find("\n\n", a) - a);
}

TEST(CMakeGen, KernelObjectsCompileForSm90aWithoutTorchHeaders) {
  const std::string text = Render(FakeConfig(), {});
  const std::string kernel = Section(text, "add_library(kbuild_kernel_my_op OBJECT");
  ASSERT_FALSE(kernel.empty()) << text;
  EXPECT_NE(kernel.find("[[/p/my_op_cuda/my_op.cu]]"), std::string::npos);
  EXPECT_EQ(kernel.find("my_op.cuh"), std::string::npos) << "headers are not compiled";
  EXPECT_NE(kernel.find("-gencode=arch=compute_90a,code=sm_90a"), std::string::npos);
  EXPECT_NE(kernel.find("$<$<COMPILE_LANGUAGE:CUDA>:-O3>"), std::string::npos);
  EXPECT_NE(kernel.find("-lineinfo"), std::string::npos);
  EXPECT_NE(kernel.find("--expt-relaxed-constexpr"), std::string::npos);
  EXPECT_NE(kernel.find("$<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>"), std::string::npos)
      << "kbuild tune reads the spills from the build log";
  EXPECT_EQ(kernel.find("--use_fast_math"), std::string::npos);
  EXPECT_EQ(kernel.find("/venv/torch"), std::string::npos) << "no torch include dirs on .cu";
  EXPECT_EQ(kernel.find("kbuild_torch"), std::string::npos);
  EXPECT_NE(kernel.find("[[/p/include]]"), std::string::npos);
}

TEST(CMakeGen, BindingGetsTorchAndLinksIntoNamespacedLibrary) {
  const std::string text = Render(FakeConfig(), {});
  EXPECT_NE(text.find("project(my_op LANGUAGES CXX CUDA)"), std::string::npos);
  EXPECT_EQ(text.find("find_package(Torch"), std::string::npos);
  EXPECT_NE(text.find("[[/venv/torch/include]]\n  [[/venv/torch/include/torch/csrc/api/include]]"),
            std::string::npos);
  EXPECT_NE(text.find("_GLIBCXX_USE_CXX11_ABI=1"), std::string::npos);
  EXPECT_NE(text.find("[[/venv/torch/lib/libtorch_cuda.so]]"), std::string::npos);
  EXPECT_NE(text.find("CUDA::cudart"), std::string::npos);
  const std::string ops = Section(text, "add_library(kbuild_ops SHARED");
  EXPECT_NE(
      ops.find("[[/p/torch-ext/torch_binding.cpp]]\n  $<TARGET_OBJECTS:kbuild_kernel_my_op>)"),
      std::string::npos)
      << ops;
  EXPECT_EQ(ops.find("torch_binding.h"), std::string::npos);
  EXPECT_NE(ops.find("OUTPUT_NAME \"_my_op_cuda_0123abcd\""), std::string::npos);
  EXPECT_NE(ops.find("BUILD_RPATH [[/venv/torch/lib]]"), std::string::npos);
  EXPECT_NE(ops.find("[[/p/build/cmake/include]]"), std::string::npos);
  EXPECT_NE(ops.find("TORCH_EXTENSION_NAME=_my_op_cuda_0123abcd"), std::string::npos);
  EXPECT_NE(ops.find("-fPIC -O2"), std::string::npos);
  EXPECT_NE(ops.find("target_link_libraries(kbuild_ops PRIVATE kbuild_torch)"), std::string::npos);
}

TEST(CMakeGen, FastMathOnlyWhenTheKernelAsks) {
  ProjectConfig c = FakeConfig();
  c.kernels[0].cuda_flags = {"--use_fast_math"};
  EXPECT_NE(Render(c, {}).find("$<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math>"), std::string::npos);
}

TEST(CMakeGen, ArchOverrideAndDebugAndCcache) {
  GenerateOptions o;
  o.arch_override = {"8.0", "9.0"};
  o.debug = true;
  o.ccache = "/usr/bin/ccache";
  const std::string text = Render(FakeConfig(), o);
  EXPECT_NE(text.find("-gencode=arch=compute_80,code=sm_80"), std::string::npos);
  EXPECT_NE(text.find("-gencode=arch=compute_90a,code=sm_90a"), std::string::npos);
  EXPECT_NE(text.find("$<$<COMPILE_LANGUAGE:CUDA>:-G>"), std::string::npos);
  EXPECT_EQ(text.find("-lineinfo"), std::string::npos);
  EXPECT_NE(text.find("-fPIC -O0 -g"), std::string::npos);
  EXPECT_NE(text.find("set(CMAKE_CUDA_COMPILER_LAUNCHER [[/usr/bin/ccache]])"), std::string::npos);
  EXPECT_NE(text.find("set(CMAKE_CXX_COMPILER_LAUNCHER [[/usr/bin/ccache]])"), std::string::npos);
}

TEST(CMakeGen, InvalidCapabilityNamesTheKernel) {
  ProjectConfig c = FakeConfig();
  c.kernels[0].cuda_capabilities = {"nine"};
  auto plan = PlanFromConfig(c, MemoryFileSystem(), FakeTorch(), "_n_cuda_00000000", "/inc", {});
  ASSERT_TRUE(plan.ok());
  auto text = RenderCMakeLists(*plan);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, "invalid CUDA capability 'nine' in [kernel.my_op]");
}

TEST(CMakeGen, MissingBindingIsAConfigError) {
  ProjectConfig c = FakeConfig();
  c.torch.reset();
  auto plan = PlanFromConfig(c, MemoryFileSystem(), FakeTorch(), "_n_cuda_00000000", "/inc", {});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ExitCode::kUsage);
  EXPECT_EQ(plan.error().Located(),
            "build.toml: no binding source to build ([torch] src lists no .cpp file)");
}

TEST(CMakeGen, TestAndBenchmarkTargetsOnlyWithHarnessAndSources) {
  MemoryFileSystem fs;
  GenerateOptions o;
  o.harness_cmake = "/kb/tools/harness/harness.cmake";
  EXPECT_EQ(Render(FakeConfig(), o, fs).find("kbuild_tests"), std::string::npos);

  (void)fs.Write("/p/tests/test_my_op.cpp", "");
  EXPECT_EQ(Render(FakeConfig(), o, fs).find("kbuild_tests"), std::string::npos)
      << "no harness.cmake yet";

  (void)fs.Write("/kb/tools/harness/harness.cmake", "");
  (void)fs.Write("/p/benchmarks/bench_my_op.cpp", "");
  const std::string text = Render(FakeConfig(), o, fs);
  EXPECT_NE(text.find("include([[/kb/tools/harness/harness.cmake]])"), std::string::npos);
  EXPECT_NE(text.find("add_executable(kbuild_tests\n  [[/p/tests/test_my_op.cpp]])"),
            std::string::npos);
  EXPECT_NE(text.find("GTest::gtest GTest::gtest_main kbuild_harness "
                      "kbuild_torch)\nkbuild_harness_link_ops(kbuild_tests kbuild_ops)"),
            std::string::npos);
  EXPECT_NE(text.find("benchmark::benchmark kbuild_harness "
                      "kbuild_torch)\nkbuild_harness_link_ops(kbuild_benchmarks kbuild_ops)"),
            std::string::npos);
}

// kbuild's harness.cmake and a project with one test file.
MemoryFileSystem HarnessAndOneTest() {
  MemoryFileSystem fs;
  (void)fs.Write("/kb/tools/harness/harness.cmake", "");
  (void)fs.Write("/p/tests/test_my_op.cpp", "");
  return fs;
}

GenerateOptions WithHarness() {
  GenerateOptions o;
  o.harness_cmake = "/kb/tools/harness/harness.cmake";
  return o;
}

// The harness libraries come prebuilt from KBUILD_CACHE_DIR/harness (harness_library.h).
TEST(CMakeGen, HarnessLibraryIsImportedFromThePrebuiltFolder) {
  const MemoryFileSystem fs = HarnessAndOneTest();
  GenerateOptions o = WithHarness();
  EXPECT_EQ(Render(FakeConfig(), o, fs).find("KBUILD_HARNESS_PREBUILT_DIR"), std::string::npos)
      << "none given: harness.cmake compiles the harness in this tree";
  o.harness_prebuilt_dir = "/cache/harness/0123456789abcdef";
  const std::string text = Render(FakeConfig(), o, fs);
  EXPECT_NE(text.find("set(KBUILD_HARNESS_PREBUILT_DIR [[/cache/harness/0123456789abcdef]])\n"
                      "include([[/kb/tools/harness/harness.cmake]])"),
            std::string::npos)
      << text;

  ProjectConfig no_tests = FakeConfig();
  no_tests.root = "/q";
  EXPECT_EQ(Render(no_tests, o, fs).find("KBUILD_HARNESS_PREBUILT_DIR"), std::string::npos)
      << "nothing links the harness";
}

TEST(CMakeGen, DefinesReachTheProjectsTargetsNotTheHarnessAndOnlyWhenGiven) {
  const MemoryFileSystem fs = HarnessAndOneTest();
  GenerateOptions o = WithHarness();
  EXPECT_EQ(Render(FakeConfig(), o, fs).find("kbuild --define"), std::string::npos);
  o.defines = {{"BLOCK_THREADS", "256"}, {"MODE", "fast"}};
  const std::string text = Render(FakeConfig(), o, fs);
  for (const char* target : {"kbuild_kernel_my_op", "kbuild_ops", "kbuild_tests"}) {
    EXPECT_NE(text.find(std::string("target_compile_definitions(") + target +
                        " PRIVATE [[BLOCK_THREADS=256]] [[MODE=fast]])"),
              std::string::npos)
        << target << "\n"
        << text;
  }
  EXPECT_EQ(text.find("target_compile_definitions(kbuild_benchmarks"), std::string::npos)
      << "no benchmark sources, no benchmark target";
  EXPECT_EQ(text.find("add_compile_definitions"), std::string::npos)
      << "directory-wide, it would reach the harness library too";
}

// File names are hostile: CMake must see the exact name, never a variable.
TEST(CMakeGen, NastyFileNamesReachCMakeLiterally) {
  ProjectConfig config = FakeConfig();
  config.kernels[0].src = {"k/a b'q #{x}.cu", "k/x]]y].cu"};
  const std::string kernel = Section(Render(config, {}), "add_library(kbuild_kernel_my_op OBJECT");
  EXPECT_NE(kernel.find("[[/p/k/a b'q #{x}.cu]]"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("[=[/p/k/x]]y].cu]=]"), std::string::npos) << kernel;
}

TEST(CMakeGen, NameCMakeCannotCarryIsRefused) {
  ProjectConfig config = FakeConfig();
  config.root = "/home/u/a;b";
  auto plan = PlanFromConfig(config, MemoryFileSystem(), FakeTorch(), "_my_op_cuda_0123abcd",
                             "/p/build/cmake/include", {});
  ASSERT_TRUE(plan.ok());
  auto text = RenderCMakeLists(*plan);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, ExitCode::kUsage);
  EXPECT_NE(text.error().message.find("'/home/u/a;b/my_op_cuda/my_op.cu'"), std::string::npos)
      << text.error().message;
  EXPECT_NE(text.error().message.find("';'"), std::string::npos);
}

TEST(CMakeGen, OpsLibraryRefusesUndefinedSymbols) {
  const std::string text = Render(FakeConfig(), {});
  EXPECT_NE(text.find("target_link_options(kbuild_ops PRIVATE \"LINKER:--no-undefined\")"),
            std::string::npos)
      << text;
}

// The harness compiles tests/*.cpp and benchmarks/*.cpp: a link there (to a file anywhere)
// or a FIFO is refused, naming it; files in subfolders are not compiled.
TEST(HarnessCppFiles, ListsTheFolderItsOwnCppFilesAndRefusesLinks) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.Write("/p/tests/a_test.cpp", "").ok());
  ASSERT_TRUE(fs.Write("/p/tests/helpers.h", "").ok());
  ASSERT_TRUE(fs.Write("/p/tests/data/b_test.cpp", "").ok());
  auto files = HarnessCppFiles(fs, "/p/tests");
  ASSERT_TRUE(files.ok()) << files.error().Located();
  EXPECT_EQ(*files, std::vector<std::filesystem::path>{"/p/tests/a_test.cpp"});
  EXPECT_TRUE(HarnessCppFiles(fs, "/p/benchmarks")->empty()) << "no folder, no sources";

  fs.PlantSymlink("/p/tests/evil.cpp", "/outside.cpp");
  auto refused = HarnessCppFiles(fs, "/p/tests");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ExitCode::kUsage);
  EXPECT_EQ(refused.error().Located(),
            "/p/tests/evil.cpp: a symbolic link where the harness compiles sources");
  fs.PlantSymlink("/p/benchmarks", "/elsewhere");
  EXPECT_FALSE(HarnessCppFiles(fs, "/p/benchmarks").ok());
}

}  // namespace
}  // namespace kb
