// build.toml parsing: every error message is asserted exactly, because agents
// and people act on them.
#include "core/config.h"

#include <gtest/gtest.h>

#include "core/config_schema.h"

namespace kb {
namespace {

constexpr const char* kValid = R"([general]
name = "rmsnorm"
backends = ["cuda"]
version = 1
license = "apache-2.0"

[torch]
src = ["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"]

[kernel.rmsnorm]
backend = "cuda"
depends = ["torch"]
src = ["rmsnorm_cuda/rmsnorm.cu"]
cuda-capabilities = ["9.0"]
)";

// kValid with `from` replaced by `to` (which must occur once).
std::string Edit(const std::string& from, const std::string& to) {
  std::string text = kValid;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

void ExpectError(const Error& e, const std::string& located, const std::string& hint) {
  EXPECT_EQ(e.Located(), located);
  EXPECT_EQ(e.hint, hint);
}

std::vector<Error> Errors(const std::string& text) {
  return ParseProjectConfigAll(text, "build.toml").errors;
}

Error OnlyError(const std::string& text) {
  std::vector<Error> errors = Errors(text);
  EXPECT_EQ(errors.size(), 1u);
  return errors.empty() ? Error{} : errors.front();
}

TEST(Config, ValidConfigParses) {
  ConfigResult result = ParseProjectConfigAll(kValid, "build.toml");
  ASSERT_TRUE(result.errors.empty()) << result.errors.front().Located();
  EXPECT_TRUE(result.warnings.empty());
  const ProjectConfig& c = *result.config;
  EXPECT_EQ(c.name, "rmsnorm");
  EXPECT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].location.line, 10);
  EXPECT_EQ(c.kernels[0].src_locations[0].line, 13);
  EXPECT_EQ(c.kernels[0].src_locations[0].column, 8);
}

TEST(Config, RoundTripOfEveryField) {
  const std::string text = R"([general]
name = "fused-norm"
backends = ["cuda", "rocm"]
version = 3
license = "apache-2.0"
edition = 2
upstream = "https://github.com/org/repo"
source = "https://github.com/org/fused-norm"
python-depends = ["einops"]

[general.hub]
repo-id = "org/fused-norm"
branch = "main"

[general.cuda]
minver = "12.4"
maxver = "13.0"
python-depends = ["nvidia-cutlass-dsl"]

[general.xpu]
python-depends = ["einops"]

[torch]
src = ["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"]
include = ["torch-ext/include"]
pyext = ["py", "json"]
minver = "2.8"
maxver = "2.11"

[kernel.norm_cuda]
backend = "cuda"
depends = ["torch", "cutlass_3_9"]
src = ["fused_norm_cuda/norm.cu", "fused_norm_cuda/norm.cuh"]
include = ["fused_norm_cuda"]
cuda-capabilities = ["9.0", "10.0a"]
cuda-flags = ["-lineinfo"]
cuda-minver = "12.8"
cxx-flags = ["-O3"]

[kernel.norm_rocm]
backend = "rocm"
depends = ["torch"]
src = ["fused_norm_cuda/norm.cu"]
rocm-archs = ["gfx942"]
hip-flags = ["-O3"]
)";
  Expected<ProjectConfig> parsed = ParseProjectConfig(text, "build.toml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().Located();
  const ProjectConfig& c = *parsed;
  EXPECT_EQ(c.name, "fused-norm");
  EXPECT_EQ(c.PythonName(), "fused_norm");
  EXPECT_EQ(c.backends, (std::vector<std::string>{"cuda", "rocm"}));
  EXPECT_EQ(c.version, 3);
  EXPECT_EQ(c.license, "apache-2.0");
  EXPECT_EQ(c.edition, 2);
  EXPECT_EQ(c.upstream, "https://github.com/org/repo");
  EXPECT_EQ(c.source, "https://github.com/org/fused-norm");
  EXPECT_EQ(c.python_depends, std::vector<std::string>{"einops"});
  ASSERT_TRUE(c.hub.has_value());
  EXPECT_EQ(c.hub->repo_id, "org/fused-norm");
  EXPECT_EQ(c.hub->branch, "main");
  EXPECT_EQ(c.cuda_minver, "12.4");
  EXPECT_EQ(c.cuda_maxver, "13.0");
  EXPECT_EQ(c.cuda_python_depends, std::vector<std::string>{"nvidia-cutlass-dsl"});
  EXPECT_EQ(c.xpu_python_depends, std::vector<std::string>{"einops"});
  ASSERT_TRUE(c.torch.has_value());
  EXPECT_EQ(c.torch->src.size(), 2u);
  EXPECT_EQ(c.torch->include, std::vector<std::string>{"torch-ext/include"});
  EXPECT_EQ(c.torch->pyext, (std::vector<std::string>{"py", "json"}));
  EXPECT_EQ(c.torch->minver, "2.8");
  EXPECT_EQ(c.torch->maxver, "2.11");
  EXPECT_EQ(c.torch->location.line, 23);
  ASSERT_EQ(c.kernels.size(), 2u);
  const KernelConfig& k = c.kernels[0];  // file order
  EXPECT_EQ(k.name, "norm_cuda");
  EXPECT_EQ(k.backend, "cuda");
  EXPECT_EQ(k.depends, (std::vector<std::string>{"torch", "cutlass_3_9"}));
  EXPECT_EQ(k.src.size(), 2u);
  EXPECT_EQ(k.include, std::vector<std::string>{"fused_norm_cuda"});
  EXPECT_EQ(k.cuda_capabilities, (std::vector<std::string>{"9.0", "10.0a"}));
  EXPECT_EQ(k.cuda_capability_locations[1].line, 35);
  EXPECT_EQ(k.cuda_flags, std::vector<std::string>{"-lineinfo"});
  EXPECT_EQ(k.cuda_minver, "12.8");
  EXPECT_EQ(k.cxx_flags, std::vector<std::string>{"-O3"});
  EXPECT_EQ(c.kernels[1].name, "norm_rocm");
  EXPECT_EQ(c.kernels[1].rocm_archs, std::vector<std::string>{"gfx942"});
  EXPECT_EQ(c.kernels[1].hip_flags, std::vector<std::string>{"-O3"});
}

TEST(Config, MalformedTomlPointsAtTheSpot) {
  const Error e = OnlyError(Edit("version = 1", "version = = 1"));
  EXPECT_EQ(e.code, ExitCode::kUsage);
  EXPECT_EQ(e.Located(),
            "build.toml:4:11: invalid TOML: Error while parsing value: could not determine value "
            "type");
  EXPECT_EQ(e.detail, " 4 | version = = 1\n   |           ^\n");
  EXPECT_EQ(e.hint, "fix the TOML syntax at this spot (see https://toml.io)");
}

TEST(Config, UnknownKeyInKernelSuggestsTheNearestKey) {
  const Error e = OnlyError(Edit("cuda-capabilities", "cuda-capability"));
  ExpectError(e, "build.toml:14:1: unknown key 'cuda-capability' in [kernel.rmsnorm]",
              "did you mean 'cuda-capabilities'?");
  EXPECT_EQ(e.detail, " 14 | cuda-capability = [\"9.0\"]\n    | ^\n");
  EXPECT_EQ(e.code, ExitCode::kUsage);
}

TEST(Config, UnknownKeyInEveryTable) {
  struct Case {
    std::string from, to, located, hint;
  };
  const std::vector<Case> cases = {
      {"version = 1", "verison = 1", "build.toml:4:1: unknown key 'verison' in [general]",
       "did you mean 'version'?"},
      {"src = [\"torch-ext/torch_binding.cpp\"", "srcs = [\"torch-ext/torch_binding.cpp\"",
       "build.toml:8:1: unknown key 'srcs' in [torch]", "did you mean 'src'?"},
      {"[torch]", "[general.hub]\nrepo_id = \"a/b\"\n\n[torch]",
       "build.toml:8:1: unknown key 'repo_id' in [general.hub]", "did you mean 'repo-id'?"},
      {"[torch]", "[general.cuda]\nmin-ver = \"12.0\"\n\n[torch]",
       "build.toml:8:1: unknown key 'min-ver' in [general.cuda]", "did you mean 'minver'?"},
      {"[general]", "[generel]\n[general]",
       "build.toml:1:2: unknown key 'generel' at the top level", "did you mean 'general'?"},
      {"depends = [\"torch\"]", "depends = [\"torch\"]\nrocm-archs = [\"gfx942\"]",
       "build.toml:13:1: unknown key 'rocm-archs' in [kernel.rmsnorm]",
       "'rocm-archs' is only valid for backend = \"rocm\" (this kernel's backend is \"cuda\")"},
  };
  for (const auto& c : cases) {
    const Error e = OnlyError(Edit(c.from, c.to));
    ExpectError(e, c.located, c.hint);
  }
}

TEST(Config, TorchCxxFlagsAreRejectedLikeKernelBuilder) {
  const Error e = OnlyError(Edit("[kernel.rmsnorm]", "cxx-flags = [\"-O3\"]\n\n[kernel.rmsnorm]"));
  ExpectError(e, "build.toml:10:1: unknown key 'cxx-flags' in [torch]",
              "valid: src, include, pyext, minver, maxver");
}

// Flags reach CMake (which expands $ENV{...} and $<...>, and splits at ';') and nvcc (which
// passes -D values through a shell): characters either reads specially are refused.
TEST(Config, FlagsThatCMakeOrAShellWouldReadAreRefused) {
  for (const std::string flag : {"-DK=$ENV{SECRET}", "-DX=$(touch /tmp/p)", "x>;$<1:-DINJ>",
                                 "-DS=\\\"a\\\"", "-DQ=`id`", "-Dnl=\\n"}) {
    const std::vector<Error> errors =
        Errors(Edit("depends = [\"torch\"]\n",
                    "depends = [\"torch\"]\ncuda-flags = [\"-O3\", \"" + flag + "\"]\n"));
    ASSERT_EQ(errors.size(), 1u) << flag;
    EXPECT_NE(errors[0].message.find("in 'cuda-flags' of [kernel.rmsnorm] holds"),
              std::string::npos)
        << errors[0].Located();
    EXPECT_EQ(errors[0].column, 22) << "at the second flag: " << flag;
  }
  EXPECT_TRUE(Errors(Edit("depends = [\"torch\"]\n",
                          "depends = [\"torch\"]\ncxx-flags = [\"-DBLOCK=256\", "
                          "\"-Xcompiler=-Wall,-Wextra\", \"-std=c++17\"]\n"))
                  .empty());
}

// A build compiles the project and nothing else: flags that run a program the repository ships
// (here ../../evil/as, which -B makes g++ run as its assembler), read options from a file,
// reach the linker, or write files elsewhere are refused, also inside -Xcompiler's list.
TEST(Config, FlagsThatRunReadOrWriteWhatTheyNameAreRefused) {
  for (const std::string flag : {"-Xcompiler=-B../../evil/",
                                 "-B../../evil/",
                                 "-ccbin=../evil/gcc",
                                 "--compiler-bindir=x",
                                 "-Xcompiler=-Wall,-fplugin=./x.so",
                                 "--compiler-options=-wrapper,./w",
                                 "-optf=flags.txt",
                                 "@flags.txt",
                                 "-Xlinker=-rpath",
                                 "-Wl,-rpath,/x",
                                 "-o/tmp/out",
                                 "-o",
                                 "-MF/tmp/deps",
                                 "--keep-dir=/tmp/k",
                                 "-Xptxas=-o,/tmp/x",
                                 "-include/etc/passwd",
                                 "-fdump-tree-all",
                                 "--run",
                                 "-Xcompiler=--prefix=../evil/",
                                 "--archiver-binary=./ar",
                                 "--output=/tmp/x",
                                 "-Xcompiler=--for-linker,-rpath",
                                 "--include",
                                 "--include=/etc/passwd"}) {
    const std::vector<Error> errors =
        Errors(Edit("depends = [\"torch\"]\n",
                    "depends = [\"torch\"]\ncuda-flags = [\"-O3\", \"" + flag + "\"]\n"));
    ASSERT_EQ(errors.size(), 1u) << flag;
    EXPECT_NE(errors[0].message.find("flag '" + flag + "' in 'cuda-flags' of [kernel.rmsnorm]: '"),
              std::string::npos)
        << errors[0].Located();
    EXPECT_EQ(errors[0].column, 22) << "at the second flag: " << flag;
  }
  // The options these prefixes resemble, and the templates' own, pass.
  EXPECT_TRUE(
      Errors(Edit("depends = [\"torch\"]\n",
                  "depends = [\"torch\"]\ncuda-flags = [\"-O3\", \"-opt-info=inline\", "
                  "\"-Xptxas=-v,-warn-spills\", \"-Xcompiler=-Wall,-Wpedantic,-Waddress\", "
                  "\"--use_fast_math\", \"-lineinfo\", \"-Xcompiler\", \"-fno-strict-aliasing\", "
                  "\"-gencode=arch=compute_90a,code=sm_90a\", \"--include-path=inc\", "
                  "\"-Xcudafe=--diag_suppress=177\", \"-U__CUDA_NO_HALF_OPERATORS__\"]\n"))
          .empty());
}

TEST(Config, WrongTypeAtTheValue) {
  const Error e = OnlyError(Edit("version = 1", "version = \"1\""));
  ExpectError(e, "build.toml:4:11: 'version' must be an integer, found string",
              "write a whole number without quotes, e.g. version = 1");

  const Error list = OnlyError(Edit("backends = [\"cuda\"]", "backends = \"cuda\""));
  ExpectError(list, "build.toml:3:12: 'backends' must be an array of strings, found string",
              "write a list of quoted strings, e.g. backends = [\"...\"]");

  const Error element = OnlyError(Edit("[\"9.0\"]", "[9.0]"));
  ExpectError(element,
              "build.toml:14:22: 'cuda-capabilities' must be an array of strings, found float at "
              "element 1",
              "quote each element, e.g. cuda-capabilities = [\"...\"]");
}

TEST(Config, MissingRequiredKeysAtTheTableHeader) {
  const Error name = OnlyError(Edit("name = \"rmsnorm\"\n", ""));
  ExpectError(name, "build.toml:1:1: missing required key 'name' in [general]",
              "add name = \"my-kernel\"");

  const Error depends = OnlyError(Edit("depends = [\"torch\"]\n", ""));
  ExpectError(depends, "build.toml:10:1: missing required key 'depends' in [kernel.rmsnorm]",
              "add depends = [\"torch\"]");

  const Error general = OnlyError("[torch]\nsrc = [\"a.cpp\"]\n");
  EXPECT_EQ(general.Located(), "build.toml:1: missing required table [general]");
}

TEST(Config, InvalidProjectNameShowsAValidForm) {
  const Error e = OnlyError(Edit("name = \"rmsnorm\"", "name = \"My_Norm\""));
  ExpectError(e,
              "build.toml:2:8: invalid project name 'My_Norm': use lowercase letters, digits and "
              "dashes, starting with a letter and not ending with a dash, at least 2 characters",
              "try name = \"my-norm\"");
}

TEST(Config, InvalidKernelName) {
  const Error e = OnlyError(Edit("[kernel.rmsnorm]", "[kernel.RMSNorm]"));
  ExpectError(e,
              "build.toml:10:9: invalid kernel name 'RMSNorm': use lowercase letters, digits, '_' "
              "and '-', starting with a letter",
              "try [kernel.rmsnorm]");
}

TEST(Config, UnknownBackend) {
  const Error general = OnlyError(Edit("backends = [\"cuda\"]", "backends = [\"cdua\"]"));
  ExpectError(general, "build.toml:3:13: unknown backend 'cdua' in [general] backends",
              "did you mean 'cuda'?");

  const Error kernel = OnlyError(Edit("backend = \"cuda\"", "backend = \"triton\""));
  ExpectError(kernel, "build.toml:11:11: unknown backend 'triton' in [kernel.rmsnorm]",
              "valid: cpu, cuda, metal, rocm, xpu");
}

TEST(Config, BadCapabilityGetsAGuess) {
  const Error e = OnlyError(Edit("[\"9.0\"]", "[\"9.0\", \"sm_90a\"]"));
  ExpectError(e,
              "build.toml:14:29: invalid CUDA capability 'sm_90a' in [kernel.rmsnorm]: expected "
              "MAJOR.MINOR like \"9.0\"",
              "write \"9.0a\"");
  EXPECT_EQ(OnlyError(Edit("[\"9.0\"]", "[\"hopper\"]")).hint,
            "write capabilities as \"MAJOR.MINOR\", e.g. \"9.0\" for H100/H200");
}

TEST(Config, EmptySrc) {
  const Error e = OnlyError(Edit("src = [\"rmsnorm_cuda/rmsnorm.cu\"]", "src = []"));
  ExpectError(e, "build.toml:13:7: 'src' is empty in [kernel.rmsnorm]",
              "list at least one file, e.g. src = [\"rmsnorm_cuda/rmsnorm.cu\"]");
}

// Sources stay in the project: kbuild compiles them with the user's rights.
TEST(Config, SourcesAndIncludesOutsideTheProjectAreRefused) {
  ExpectError(OnlyError(Edit("\"rmsnorm_cuda/rmsnorm.cu\"]", "\"/etc/shadow.cu\"]")),
              "build.toml:13:8: 'src' entry '/etc/shadow.cu' in [kernel.rmsnorm] is an absolute "
              "path",
              "paths are relative to the project directory and stay inside it");
  ExpectError(OnlyError(Edit("\"rmsnorm_cuda/rmsnorm.cu\"]", "\"a/../../x.cu\"]")),
              "build.toml:13:8: 'src' entry 'a/../../x.cu' in [kernel.rmsnorm] leads outside the "
              "project directory",
              "kbuild compiles only the project's own files: move the file into the project and "
              "list it relative to build.toml");
  EXPECT_TRUE(Errors(Edit("\"rmsnorm_cuda/rmsnorm.cu\"]", "\"a/../rmsnorm.cu\"]")).empty());
  EXPECT_EQ(OnlyError(Edit("[torch]\n", "[torch]\ninclude = [\"../shared\"]\n")).Located(),
            "build.toml:8:12: 'include' entry '../shared' in [torch] leads outside the project "
            "directory");
  EXPECT_EQ(OnlyError(Edit("cuda-capabilities", "include = [\"/usr/include\"]\ncuda-capabilities"))
                .Located(),
            "build.toml:14:12: 'include' entry '/usr/include' in [kernel.rmsnorm] is an absolute "
            "path");
}

TEST(Config, NamesTheGeneratedCMakeCannotCarryAreRefused) {
  ExpectError(OnlyError(Edit("rmsnorm_cuda/rmsnorm.cu", "k/a;b.cu")),
              "build.toml:13:8: 'src' entry 'k/a;b.cu' in [kernel.rmsnorm] contains a ';' (CMake "
              "splits lists at it)",
              "rename the file: the generated CMake cannot name it exactly");
  EXPECT_EQ(OnlyError(Edit("rmsnorm_cuda/rmsnorm.cu", "k/a$ENV{HOME}.cu")).Located(),
            "build.toml:13:8: 'src' entry 'k/a$ENV{HOME}.cu' in [kernel.rmsnorm] contains a "
            "'$' (CMake and nvcc would expand it, not name the file)");
  EXPECT_TRUE(Errors(Edit("rmsnorm_cuda/rmsnorm.cu", "k/a b'q #{x}.cu")).empty());
}

TEST(Config, BadVersionString) {
  const Error e = OnlyError(Edit("[torch]", "[torch]\nminver = \"two\""));
  ExpectError(e, "build.toml:8:10: invalid version 'two' for 'minver' in [torch]",
              "use numbers separated by dots, e.g. minver = \"2.8\"");
}

TEST(Config, CollectsEveryErrorInFileOrder) {
  std::string text = Edit("name = \"rmsnorm\"", "name = \"Bad\"");
  text.replace(text.find("cuda-capabilities"), 17, "cuda-capability");
  text.replace(text.find("version = 1"), 11, "version = \"1\"");
  const std::vector<Error> errors = Errors(text);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].line, 2);
  EXPECT_EQ(errors[1].line, 4);
  EXPECT_EQ(errors[2].line, 14);
  // The Expected API returns the first.
  EXPECT_EQ(ParseProjectConfig(text, "build.toml").error().line, 2);
}

TEST(Config, MissingLicenseIsAWarning) {
  ConfigResult result = ParseProjectConfigAll(Edit("license = \"apache-2.0\"\n", ""), "build.toml");
  EXPECT_TRUE(result.errors.empty());
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_EQ(result.warnings[0].Located(), "build.toml:1:1: [general] has no 'license'");
  EXPECT_TRUE(result.config.has_value());
}

TEST(Config, LoadReportsAMissingFile) {
  MemoryFileSystem fs;
  Expected<ProjectConfig> c = LoadProjectConfig(fs, "proj");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ExitCode::kUsage);
  EXPECT_EQ(c.error().Located(), "proj/build.toml: no build.toml in this project directory");

  ASSERT_TRUE(fs.Write("proj/build.toml", kValid).ok());
  Expected<ProjectConfig> ok = LoadProjectConfig(fs, "proj");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->root, "proj");
  EXPECT_EQ(ConfigDisplayPath("."), "build.toml");
}

TEST(ConfigSchema, NameRules) {
  EXPECT_TRUE(IsValidProjectName("rms-norm2"));
  EXPECT_FALSE(IsValidProjectName("a"));
  EXPECT_FALSE(IsValidProjectName("rms-"));
  EXPECT_FALSE(IsValidProjectName("2rms"));
  EXPECT_FALSE(IsValidProjectName("rms_norm"));
  EXPECT_TRUE(IsValidKernelName("rms_norm"));
  EXPECT_EQ(SuggestProjectName("9 Fused__Norm-"), "fused-norm");
  EXPECT_TRUE(IsCudaCapability("10.0f"));
  EXPECT_FALSE(IsCudaCapability("9"));
  EXPECT_EQ(GuessCudaCapability("100"), "10.0");
  EXPECT_TRUE(IsVersionString("12.4.1"));
  EXPECT_FALSE(IsVersionString("12."));
}

}  // namespace
}  // namespace kb
