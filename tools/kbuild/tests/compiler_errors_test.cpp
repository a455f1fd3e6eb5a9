#include "core/compiler_errors.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

// Captured from nvcc 13.0 (ninja prefixes lines with its own status).
constexpr const char* kNvccOutput =
    "[1/3] Building CUDA object CMakeFiles/kbuild_kernel_scale.dir/scale.cu.o\n"
    "FAILED: CMakeFiles/kbuild_kernel_scale.dir/scale.cu.o\n"
    "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -c /p/scale_cuda/scale.cu\n"
    "/p/scale_cuda/scale.cu(3): error: identifier \"undefined_thing\" is undefined\n"
    "      x[0] = undefined_thing + 1;\n"
    "             ^\n"
    "\n"
    "/p/scale_cuda/scale.cu(4): error: expected a \";\"\n"
    "2 errors detected in the compilation of \"/p/scale_cuda/scale.cu\".\n";

// Captured from g++ 12.
constexpr const char* kGccOutput =
    "/p/torch-ext/torch_binding.cpp: In function 'int f()':\n"
    "/p/torch-ext/torch_binding.cpp:2:10: error: 'missing_var' was not declared in this scope\n"
    "    2 |   return missing_var;\n"
    "      |          ^~~~~~~~~~~\n";

// Captured from GNU ld.
constexpr const char* kLdOutput =
    "[3/3] Linking CXX shared library _scale_cuda_1.so\n"
    "/usr/bin/ld: CMakeFiles/kbuild_ops.dir/torch_binding.cpp.o: in function `scale(at::Tensor "
    "const&)':\n"
    "torch_binding.cpp:(.text+0x5): undefined reference to `LaunchScale(float const*, long)'\n"
    "collect2: error: ld returned 1 exit status\n";

TEST(CompilerErrors, NvccFirstErrorWithEchoedCaret) {
  auto d = FirstCompilerError(kNvccOutput);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "/p/scale_cuda/scale.cu");
  EXPECT_EQ(d->line, 3);
  EXPECT_EQ(d->column, 12);
  EXPECT_EQ(d->message, "identifier \"undefined_thing\" is undefined");
  EXPECT_EQ(d->source_line, "    x[0] = undefined_thing + 1;");
}

TEST(CompilerErrors, GccFileLineColumn) {
  auto d = FirstCompilerError(kGccOutput);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "/p/torch-ext/torch_binding.cpp");
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->column, 10);
  EXPECT_EQ(d->message, "'missing_var' was not declared in this scope");
  EXPECT_EQ(d->source_line, "  return missing_var;");
}

TEST(CompilerErrors, LinkerUndefinedReference) {
  auto d = FirstCompilerError(kLdOutput);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, CompilerDiagnostic::Kind::kLink);
  EXPECT_EQ(d->message,
            "undefined symbol 'LaunchScale(float const*, long)', referenced by "
            "torch_binding.cpp.o in scale(at::Tensor const&)");
}

TEST(CompilerErrors, LinkerMangledSymbolWithDebugLineIsDemangledAndLocated) {
  auto d = FirstCompilerError(
      "/usr/bin/ld: CMakeFiles/kbuild_ops.dir/b.cpp.o: in function `_Z5scaleRKN2at6TensorE':\n"
      "/p/torch-ext/b.cpp:12: undefined reference to `_Z11LaunchScalePKfl'\n");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "/p/torch-ext/b.cpp");
  EXPECT_EQ(d->line, 12);
  EXPECT_EQ(d->message,
            "undefined symbol 'LaunchScale(float const*, long)', referenced by b.cpp.o in "
            "scale(at::Tensor const&)");
}

TEST(CompilerErrors, LldUndefinedSymbolNamesTheObject) {
  auto d = FirstCompilerError(
      "ld.lld: error: undefined symbol: LaunchScale(float const*, long)\n"
      ">>> referenced by torch_binding.cpp\n"
      ">>>               CMakeFiles/kbuild_ops.dir/torch_binding.cpp.o:(scale(at::Tensor "
      "const&))\n");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, CompilerDiagnostic::Kind::kLink);
  EXPECT_EQ(d->message, "undefined symbol 'LaunchScale(float const*, long)'");
}

TEST(CompilerErrors, ToolErrorsAndCleanOutput) {
  auto d = FirstCompilerError("nvcc fatal   : Unsupported gpu architecture 'compute_99'\n");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->message, "nvcc: Unsupported gpu architecture 'compute_99'");
  EXPECT_FALSE(FirstCompilerError("[1/1] Linking CXX shared library x.so\n").has_value());
}

TEST(CompilerErrors, BuildErrorIsRelativeWithExcerptAndLogHint) {
  MemoryFileSystem fs;
  (void)fs.Write("/p/scale_cuda/scale.cu",
                 "#include <cuda_runtime.h>\n__global__ void k(float* x) {\n"
                 "    x[0] = undefined_thing + 1;\n}\n");
  const Error e = BuildError(*FirstCompilerError(kNvccOutput), fs, "/p", "build/logs/build.log");
  EXPECT_EQ(e.code, ExitCode::kBuildError);
  EXPECT_EQ(e.Located(), "scale_cuda/scale.cu:3:12: identifier \"undefined_thing\" is undefined");
  EXPECT_EQ(e.detail,
            "    3 |     x[0] = undefined_thing + 1;\n"
            "      |            ^\n");
  EXPECT_EQ(e.hint,
            "fix this first error and run kbuild build again (later errors often follow from it); "
            "full compiler output: build/logs/build.log");
}

// `#line 2 "/etc/secret"` makes the compiler name any file: only a project file (reached
// through no link) is read back; for the rest the excerpt is what the compiler echoed.
TEST(CompilerErrors, OnlyAProjectFileIsReadBackForTheExcerpt) {
  MemoryFileSystem fs;
  (void)fs.Write("/secret.txt", "line one\nSECRET\n");
  fs.PlantSymlink("/p/k_cuda/leak.cu", "/secret.txt");
  for (const std::string file : {"/secret.txt", "/p/k_cuda/leak.cu", "/p/../secret.txt"}) {
    const std::string output = file + ":2:1: error: expected ';'\n    2 | echoed\n      | ^\n";
    const Error e = BuildError(*FirstCompilerError(output), fs, "/p", "build/logs/build.log");
    EXPECT_EQ(e.detail, "    2 | echoed\n      | ^\n") << file;
  }
}

// Lines a compiler never starts a diagnostic with: huge ones (a long source line echoed)
// are passed over, and a line number beyond int reads as 0, not an exception.
TEST(CompilerErrors, HugeLinesAndNumbersAreNotCrashes) {
  const std::string huge = "x.cu:1:1: error: " + std::string(200000, 'a') + "\n";
  EXPECT_FALSE(FirstCompilerError(huge).has_value());
  auto big = FirstCompilerError("x.cu(4294967290): error: identifier \"b\" is undefined\n");
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->line, 0);
  EXPECT_EQ(big->message, "identifier \"b\" is undefined");
}

TEST(CompilerErrors, TorchHeaderInKernelSourceGetsItsOwnHint) {
  const std::string out =
      "/p/k.cu:1:10: fatal error: torch/extension.h: No such file or directory\n";
  const Error e =
      BuildError(*FirstCompilerError(out), MemoryFileSystem(), "/p", "build/logs/build.log");
  EXPECT_EQ(e.Located(), "k.cu:1:10: torch/extension.h: No such file or directory");
  EXPECT_EQ(e.hint.rfind("kernel sources are compiled without torch headers", 0), 0u);
}

TEST(CompilerErrors, LinkErrorHintNamesBuildToml) {
  const Error e = BuildError(*FirstCompilerError(kLdOutput), MemoryFileSystem(), "/p", "log");
  EXPECT_EQ(e.code, ExitCode::kBuildError);
  EXPECT_EQ(e.Located(),
            "undefined symbol 'LaunchScale(float const*, long)', referenced by "
            "torch_binding.cpp.o in scale(at::Tensor const&)");
  EXPECT_NE(e.hint.find("[kernel.*] src in build.toml"), std::string::npos);
}

}  // namespace
}  // namespace kb
