// Project file checks on an in-memory project; nvcc is a FakeProcessRunner.
#include "core/project_checks.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

constexpr const char* kBuildToml = R"([general]
name = "rms-norm"
backends = ["cuda"]
version = 1
license = "apache-2.0"

[torch]
src = ["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"]

[kernel.rmsnorm]
backend = "cuda"
depends = ["torch"]
src = ["rms_norm_cuda/rms_norm.cu", "rms_norm_cuda/rms_norm.cuh"]
cuda-capabilities = ["9.0", "3.5"]
)";

constexpr const char* kBinding = R"src(#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("rms_norm(Tensor! out, Tensor x, Tensor w, float eps) -> ()");
}
REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
)src";

class ProjectChecksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Put("build.toml", kBuildToml);
    Put("rms_norm_cuda/rms_norm.cu", "#include <cuda_bf16.h>\n#include \"rms_norm.cuh\"\n");
    Put("rms_norm_cuda/rms_norm.cuh", "#pragma once\n#include <cuda_runtime.h>\n");
    Put("torch-ext/torch_binding.cpp", kBinding);
    Put("torch-ext/torch_binding.h", "#pragma once\n#include <ATen/Tensor.h>\n");
    Put("torch-ext/rms_norm/__init__.py", "from ._ops import ops\n");
  }

  void Put(const std::string& relative, const std::string& text) {
    ASSERT_TRUE(fs_.Write("proj/" + relative, text).ok());
  }

  ProjectConfig Config() {
    Expected<ProjectConfig> config = LoadProjectConfig(fs_, "proj");
    EXPECT_TRUE(config.ok()) << config.error().Located();
    return config.ok() ? *config : ProjectConfig{};
  }

  std::vector<Error> FileErrors() { return CheckProjectFiles(fs_, Config()).errors; }

  Error OnlyFileError() {
    std::vector<Error> errors = FileErrors();
    EXPECT_EQ(errors.size(), 1u);
    return errors.empty() ? Error{} : errors.front();
  }

  MemoryFileSystem fs_;
};

void ExpectError(const Error& e, ExitCode code, const std::string& located,
                 const std::string& hint) {
  EXPECT_EQ(e.code, code);
  EXPECT_EQ(e.Located(), located);
  EXPECT_EQ(e.hint, hint);
}

TEST_F(ProjectChecksTest, ConformingProjectHasNoFindings) {
  CheckFindings findings = CheckProjectFiles(fs_, Config());
  EXPECT_TRUE(findings.errors.empty()) << findings.errors.front().Located();
  EXPECT_TRUE(findings.warnings.empty());
}

TEST_F(ProjectChecksTest, MissingSourceSuggestsTheNearFile) {
  ASSERT_TRUE(fs_.Remove("proj/rms_norm_cuda/rms_norm.cuh").ok());
  Put("rms_norm_cuda/rms_nrom.cuh", "");
  const Error e = OnlyFileError();
  ExpectError(e, ExitCode::kCheckFailed,
              "proj/build.toml:13:37: source file 'rms_norm_cuda/rms_norm.cuh' in "
              "[kernel.rmsnorm] does not exist",
              "did you mean 'rms_norm_cuda/rms_nrom.cuh'?");
  EXPECT_EQ(e.detail.substr(0, 5), " 13 |");
}

TEST_F(ProjectChecksTest, MissingSourceListsTheFolderWhenNothingIsClose) {
  ASSERT_TRUE(fs_.Remove("proj/rms_norm_cuda/rms_norm.cuh").ok());
  Put("rms_norm_cuda/zz.cuh", "");
  ExpectError(OnlyFileError(), ExitCode::kCheckFailed,
              "proj/build.toml:13:37: source file 'rms_norm_cuda/rms_norm.cuh' in "
              "[kernel.rmsnorm] does not exist",
              "files in 'rms_norm_cuda/': rms_norm_cuda/rms_norm.cu, rms_norm_cuda/zz.cuh");
}

// A listed source must be a regular file reached without a symlink: a link may
// lead anywhere on the disk, and a FIFO would hang the scan.
TEST_F(ProjectChecksTest, SymlinkedSourceIsRefusedWhereItIsListed) {
  ASSERT_TRUE(fs_.Remove("proj/rms_norm_cuda/rms_norm.cuh").ok());
  fs_.PlantSymlink("proj/rms_norm_cuda/rms_norm.cuh", "/etc/passwd");
  const Error e = OnlyFileError();
  EXPECT_EQ(e.Located(),
            "proj/build.toml:13:37: source file 'rms_norm_cuda/rms_norm.cuh' in "
            "[kernel.rmsnorm] is a symlink");
  EXPECT_NE(e.hint.find("outside"), std::string::npos) << e.hint;
}

TEST_F(ProjectChecksTest, SourceUnderASymlinkedFolderIsRefused) {
  ASSERT_TRUE(fs_.Remove("proj/rms_norm_cuda").ok());
  fs_.PlantSymlink("proj/rms_norm_cuda", "/home/someone/else");
  std::vector<Error> errors = FileErrors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].Located(),
            "proj/build.toml:13:8: source file 'rms_norm_cuda/rms_norm.cu' in [kernel.rmsnorm] "
            "lies under the symlink 'rms_norm_cuda'");
}

TEST_F(ProjectChecksTest, FifoOrDirectoryAsSourceIsRefusedWithoutReadingIt) {
  ASSERT_TRUE(fs_.Remove("proj/rms_norm_cuda/rms_norm.cu").ok());
  fs_.PlantSpecialFile("proj/rms_norm_cuda/rms_norm.cu");
  ASSERT_TRUE(fs_.Remove("proj/rms_norm_cuda/rms_norm.cuh").ok());
  Put("rms_norm_cuda/rms_norm.cuh/inner.cuh", "");
  std::vector<Error> errors = FileErrors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].Located(),
            "proj/build.toml:13:8: source file 'rms_norm_cuda/rms_norm.cu' in [kernel.rmsnorm] "
            "is not a regular file (a FIFO, device or socket)");
  EXPECT_EQ(errors[1].Located(),
            "proj/build.toml:13:37: source file 'rms_norm_cuda/rms_norm.cuh' in "
            "[kernel.rmsnorm] is a directory");
}

// kernel-builder copies only listed files: an included, unlisted header
// compiles here and breaks the Hub build.
TEST_F(ProjectChecksTest, IncludedProjectHeaderMustBeListed) {
  Put("rms_norm_cuda/rms_norm.cuh",
      "#pragma once\n#include <cuda_runtime.h>\n// #include \"commented.cuh\"\n"
      "#include \"common/overlap.cuh\"\n#include \"not_there.cuh\"\n");
  Put("rms_norm_cuda/common/overlap.cuh", "#pragma once\n");
  const Error e = OnlyFileError();
  EXPECT_EQ(e.Located(),
            "proj/rms_norm_cuda/rms_norm.cuh:4:1: 'rms_norm_cuda/common/overlap.cuh' is included "
            "but not listed in [kernel.rmsnorm] src");
  EXPECT_EQ(e.hint,
            "add \"rms_norm_cuda/common/overlap.cuh\" to src in [kernel.rmsnorm]: the Hub build "
            "copies only listed files");
}

TEST_F(ProjectChecksTest, IncludeFoundThroughTheKernelsIncludeFolder) {
  std::string toml = kBuildToml;
  toml += "include = [\"shared\"]\n";
  Put("build.toml", toml);
  Put("rms_norm_cuda/rms_norm.cu", "#include <vec.cuh>\n#include \"rms_norm.cuh\"\n");
  Put("shared/vec.cuh", "#pragma once\n");
  const Error e = OnlyFileError();
  EXPECT_EQ(e.Located(),
            "proj/rms_norm_cuda/rms_norm.cu:1:1: 'shared/vec.cuh' is included but not listed in "
            "[kernel.rmsnorm] src");
}

TEST_F(ProjectChecksTest, TorchHeaderInKernelSource) {
  Put("rms_norm_cuda/rms_norm.cu", "#include <cuda_bf16.h>\n  #include <ATen/ATen.h>\n");
  const Error e = OnlyFileError();
  ExpectError(e, ExitCode::kCheckFailed,
              "proj/rms_norm_cuda/rms_norm.cu:2:3: kernel source includes the torch header "
              "<ATen/ATen.h>",
              "kernel sources include CUDA headers only, so they recompile in ~2 s: move the "
              "torch code to torch-ext/torch_binding.cpp and call a launcher that takes raw "
              "pointers, sizes and a cudaStream_t");
  EXPECT_EQ(e.detail, " 2 |   #include <ATen/ATen.h>\n   |   ^\n");
}

TEST_F(ProjectChecksTest, TorchExtensionHeaderInBinding) {
  Put("torch-ext/torch_binding.h", "#pragma once\n#include \"torch/extension.h\"\n");
  ExpectError(OnlyFileError(), ExitCode::kCheckFailed,
              "proj/torch-ext/torch_binding.h:2:1: binding includes <torch/extension.h>",
              "include <torch/library.h> and the ATen headers you use instead: torch/extension.h "
              "pulls in pybind11 and Python and more than doubles the compile time");
}

TEST_F(ProjectChecksTest, Pybind11Anywhere) {
  Put("torch-ext/torch_binding.cpp",
      std::string(kBinding) + "// pybind11 in a comment is fine\nPYBIND11_MODULE(m, mod) {}\n");
  ExpectError(OnlyFileError(), ExitCode::kCheckFailed,
              "proj/torch-ext/torch_binding.cpp:11:1: pybind11 is not used in kernel projects",
              "register ops with the torch dispatcher instead "
              "(TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) in torch-ext/torch_binding.cpp); "
              "the library is loaded with torch.ops.load_library, no Python module is built");
}

TEST_F(ProjectChecksTest, NoDispatcherRegistration) {
  Put("torch-ext/torch_binding.cpp", "#include <torch/library.h>\n// TORCH_LIBRARY(x, m) later\n");
  ExpectError(OnlyFileError(), ExitCode::kCheckFailed,
              "proj/build.toml:7:1: no [torch] src registers ops (no TORCH_LIBRARY or "
              "TORCH_LIBRARY_EXPAND found)",
              "register each op with the dispatcher: TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, "
              "ops) { ops.def(\"...\"); ops.impl(\"...\", torch::kCUDA, &fn); } in "
              "torch-ext/torch_binding.cpp");
}

TEST_F(ProjectChecksTest, MissingPythonPackage) {
  ASSERT_TRUE(fs_.Remove("proj/torch-ext/rms_norm/__init__.py").ok());
  ExpectError(OnlyFileError(), ExitCode::kCheckFailed,
              "proj/torch-ext/rms_norm/__init__.py: missing Python package "
              "torch-ext/rms_norm/__init__.py",
              "create it: 'from ._ops import ops, add_op_namespace_prefix', then define the "
              "Python API and register fake impls with torch.library.register_fake");
}

TEST_F(ProjectChecksTest, UnsupportedCapabilityForAGivenArchList) {
  CheckFindings findings =
      CheckCudaCapabilities(fs_, Config(), {"compute_75", "compute_90", "compute_100"});
  ASSERT_EQ(findings.errors.size(), 1u);
  ExpectError(findings.errors[0], ExitCode::kCheckFailed,
              "proj/build.toml:14:29: CUDA capability '3.5' in [kernel.rmsnorm] is not "
              "supported by the installed nvcc",
              "supported: 7.5, 9.0, 10.0; remove it, or use a CUDA Toolkit that supports it");
  EXPECT_TRUE(CheckCudaCapabilities(fs_, Config(), {"compute_35", "compute_90"}).errors.empty());
  EXPECT_EQ(ArchToCapability("compute_120"), "12.0");
}

CudaSearch NoCudaAnywhere() {
  CudaSearch search;
  search.get_env = [](const std::string&) { return std::nullopt; };
  search.find_on_path = [](const std::string&) { return std::nullopt; };
  search.default_root = "/opt/no-cuda";
  return search;
}

TEST_F(ProjectChecksTest, MissingNvccIsAnEnvironmentError) {
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions&) {
    ProcessResult r;
    r.not_found = true;
    return r;
  });
  CheckFindings findings = CheckCudaCapabilitiesWithNvcc(fs_, Config(), runner, NoCudaAnywhere());
  ASSERT_EQ(findings.errors.size(), 1u);
  EXPECT_EQ(findings.errors[0].code, ExitCode::kEnvironment);
  EXPECT_EQ(findings.errors[0].message,
            "cannot check cuda-capabilities: nvcc not found or not working (looked at "
            "/opt/no-cuda/bin/nvcc, via /opt/no-cuda)");
}

FakeProcessRunner FakeNvcc() {
  return FakeProcessRunner([](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    r.output = argv.back() == "--version" ? "Cuda compilation tools, release 13.0, V13.0.88\n"
                                          : "compute_75\ncompute_90\n";
    return r;
  });
}

TEST_F(ProjectChecksTest, CheckProjectExitCodes) {
  FakeProcessRunner nvcc = FakeNvcc();
  ProjectCheckResult failed = CheckProject(fs_, nvcc, "proj", NoCudaAnywhere());
  ASSERT_EQ(failed.errors.size(), 1u);  // 3.5 is not in the fake list
  EXPECT_EQ(CheckExitCode(failed.errors), ExitCode::kCheckFailed);
  EXPECT_EQ(CheckSummary(failed), "check: 1 error");

  Put("build.toml",
      std::string(kBuildToml).replace(std::string(kBuildToml).find(", \"3.5\""), 7, ""));
  ProjectCheckResult ok = CheckProject(fs_, nvcc, "proj", NoCudaAnywhere());
  EXPECT_TRUE(ok.errors.empty());
  EXPECT_EQ(CheckExitCode(ok.errors), ExitCode::kOk);
  EXPECT_EQ(CheckSummary(ok), "check: ok (rms-norm: 1 kernel, 4 sources)");

  FakeProcessRunner missing([](const std::vector<std::string>&, const RunOptions&) {
    ProcessResult r;
    r.not_found = true;
    return r;
  });
  ProjectCheckResult env = CheckProject(fs_, missing, "proj", NoCudaAnywhere());
  EXPECT_EQ(CheckExitCode(env.errors), ExitCode::kEnvironment);

  Put("torch-ext/torch_binding.cpp", "PYBIND11_MODULE(m, mod) {}\n");  // 1 wins over 4
  EXPECT_EQ(CheckExitCode(CheckProject(fs_, missing, "proj", NoCudaAnywhere()).errors),
            ExitCode::kCheckFailed);

  Put("build.toml", "[general]\nname = \"x\"\n");  // config errors win and stop file checks
  ProjectCheckResult bad = CheckProject(fs_, missing, "proj", NoCudaAnywhere());
  EXPECT_EQ(CheckExitCode(bad.errors), ExitCode::kUsage);
  EXPECT_EQ(bad.errors.size(), 2u);  // name, backends
  EXPECT_EQ(CheckSummary(bad), "check: 2 errors, 1 warning");
  EXPECT_TRUE(nvcc.calls.size() >= 2u);
}

}  // namespace
}  // namespace kb
