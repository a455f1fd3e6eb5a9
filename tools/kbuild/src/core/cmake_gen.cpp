#include "core/cmake_gen.h"

#include <algorithm>
#include <sstream>

#include "core/cmake_quote.h"
#include "core/variant.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

// A CMake quoted argument for flags: backslash, quote and ${...} must stay
// literal; $<...> generator expressions must stay live, so a lone '$' is not
// escaped. Paths go through CMakeBracket, which keeps everything literal.
std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' || c == '"' || (c == '$' && i + 1 < text.size() && text[i + 1] == '{')) {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

std::string QuoteList(const std::vector<fs::path>& paths, const std::string& indent) {
  std::string out;
  for (const auto& p : paths) out += "\n" + indent + CMakeBracket(p.generic_string());
  return out;
}

// Flags apply to one language only: a kernel target may mix .cu and .cpp.
std::string LanguageFlags(const std::string& language, const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags)
    out += "\n  " + Quote("$<$<COMPILE_LANGUAGE:" + language + ">:" + f + ">");
  return out;
}

bool IsCompiled(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx";
}

std::vector<fs::path> Absolute(const fs::path& root, const std::vector<std::string>& relative,
                               bool compiled_only) {
  std::vector<fs::path> out;
  for (const auto& r : relative) {
    const fs::path p = (root / r).lexically_normal();
    if (!compiled_only || IsCompiled(p)) out.push_back(p);
  }
  return out;
}

Expected<std::vector<std::string>> CudaFlagsFor(const KernelTarget& k, bool debug) {
  std::vector<std::string> flags;
  if (debug) {
    flags = {"-G", "-O0"};  // -G implies full device debug info; -lineinfo would be ignored
  } else {
    flags = {"-O3", "-lineinfo"};
  }
  flags.push_back("--expt-relaxed-constexpr");
  // ptxas names each kernel that spills registers in the build log ("N bytes spill stores"):
  // kbuild tune reads it to refuse variants over max-spill-bytes.
  flags.push_back("-Xptxas=-warn-spills");
  for (const auto& cap : k.capabilities) {
    auto gencode = GencodeFlag(cap);
    if (!gencode) {
      Error e = gencode.error();
      e.message += " in [kernel." + k.name + "]";
      return e;
    }
    flags.push_back(*gencode);
  }
  // --use_fast_math only when the kernel asks for it, through its own cuda-flags.
  flags.insert(flags.end(), k.cuda_flags.begin(), k.cuda_flags.end());
  return flags;
}

void RenderTorchTarget(const CMakePlan& plan, std::ostringstream& out) {
  out << RenderTorchVariables(plan.torch) << "add_library(kbuild_torch INTERFACE)\n"
      << "target_include_directories(kbuild_torch SYSTEM INTERFACE ${KBUILD_TORCH_INCLUDE_DIRS})\n"
      << "target_compile_definitions(kbuild_torch INTERFACE _GLIBCXX_USE_CXX11_ABI="
      << (plan.torch.cxx11_abi ? 1 : 0) << ")\n"
      << "target_link_libraries(kbuild_torch INTERFACE ${KBUILD_TORCH_LIBRARIES} CUDA::cudart)\n\n";
}

void RenderKernel(const KernelTarget& k, const std::vector<std::string>& cuda_flags, bool debug,
                  std::ostringstream& out) {
  const std::string target = "kbuild_kernel_" + k.name;
  std::vector<std::string> cxx_flags =
      debug ? std::vector<std::string>{"-O0", "-g"} : std::vector<std::string>{"-O2"};
  cxx_flags.insert(cxx_flags.end(), k.cxx_flags.begin(), k.cxx_flags.end());
  out << "# [kernel." << k.name << "]: CUDA headers only, never torch (fast rebuilds).\n"
      << "add_library(" << target << " OBJECT" << QuoteList(k.sources, "  ") << ")\n"
      << "set_target_properties(" << target << " PROPERTIES POSITION_INDEPENDENT_CODE ON)\n";
  if (!k.include_dirs.empty()) {
    out << "target_include_directories(" << target << " PRIVATE" << QuoteList(k.include_dirs, "  ")
        << ")\n";
  }
  out << "target_link_libraries(" << target << " PRIVATE CUDA::cudart)\n"
      << "target_compile_options(" << target << " PRIVATE" << LanguageFlags("CUDA", cuda_flags)
      << LanguageFlags("CXX", cxx_flags) << ")\n\n";
}

void RenderOpsLibrary(const CMakePlan& plan, std::ostringstream& out) {
  out << "# The binding (torch/library.h + ATen) and every kernel, in one shared library.\n"
      << "add_library(" << kOpsTarget << " SHARED" << QuoteList(plan.binding_sources, "  ");
  for (const auto& k : plan.kernels) out << "\n  $<TARGET_OBJECTS:kbuild_kernel_" << k.name << ">";
  std::vector<fs::path> includes = {plan.generated_include_dir};
  includes.insert(includes.end(), plan.binding_include_dirs.begin(),
                  plan.binding_include_dirs.end());
  out << ")\n"
      << "set_target_properties(" << kOpsTarget << " PROPERTIES PREFIX \"\" SUFFIX \".so\"\n"
      << "  OUTPUT_NAME " << Quote(plan.op_namespace) << "\n"
      << "  BUILD_RPATH " << CMakeBracket(plan.torch.LibDir().generic_string()) << "\n"
      << "  INSTALL_RPATH " << CMakeBracket(plan.torch.LibDir().generic_string()) << ")\n"
      << "target_include_directories(" << kOpsTarget << " PRIVATE" << QuoteList(includes, "  ")
      << ")\n"
      << "target_compile_definitions(" << kOpsTarget
      << " PRIVATE TORCH_EXTENSION_NAME=" << plan.op_namespace << ")\n"
      << "target_compile_options(" << kOpsTarget << " PRIVATE -fPIC "
      << (plan.debug ? "-O0 -g" : "-O2") << ")\n"
      << "target_link_libraries(" << kOpsTarget
      << " PRIVATE kbuild_torch)\n"
      // A launcher declared but never defined must fail the build here, naming
      // the symbol, not when torch.ops.load_library opens the library.
      << "target_link_options(" << kOpsTarget << " PRIVATE \"LINKER:--no-undefined\")\n\n";
}

void RenderHarnessTargets(const CMakePlan& plan, std::ostringstream& out) {
  if (!plan.harness_cmake || (plan.test_sources.empty() && plan.benchmark_sources.empty())) return;
  out << "# Tests and benchmarks (built by kbuild test / kbuild bench, not by kbuild build).\n";
  if (plan.harness_prebuilt_dir) {
    // Built once per torch/CUDA/kbuild version by kbuild test and bench, not in this tree.
    out << "set(KBUILD_HARNESS_PREBUILT_DIR "
        << CMakeBracket(plan.harness_prebuilt_dir->generic_string()) << ")\n";
  }
  out << "include(" << CMakeBracket(plan.harness_cmake->generic_string()) << ")\n";
  if (!plan.test_sources.empty()) {
    out << "find_package(GTest REQUIRED)\n"
        << "add_executable(" << kTestsTarget << QuoteList(plan.test_sources, "  ") << ")\n"
        << "target_link_libraries(" << kTestsTarget
        << " PRIVATE GTest::gtest GTest::gtest_main kbuild_harness kbuild_torch)\n"
        // Nothing references the ops library by symbol: without --no-as-needed the linker
        // drops it and its TORCH_LIBRARY registration never runs.
        << "kbuild_harness_link_ops(" << kTestsTarget << " " << kOpsTarget << ")\n"
        << "target_compile_definitions(" << kTestsTarget
        << " PRIVATE TORCH_EXTENSION_NAME=" << plan.op_namespace << ")\n";
  }
  if (!plan.benchmark_sources.empty()) {
    out << "find_package(benchmark REQUIRED)\n"
        << "add_executable(" << kBenchmarksTarget << QuoteList(plan.benchmark_sources, "  ")
        << ")\n"
        << "target_link_libraries(" << kBenchmarksTarget
        << " PRIVATE benchmark::benchmark kbuild_harness kbuild_torch)\n"
        << "kbuild_harness_link_ops(" << kBenchmarksTarget << " " << kOpsTarget << ")\n"
        << "target_compile_definitions(" << kBenchmarksTarget
        << " PRIVATE TORCH_EXTENSION_NAME=" << plan.op_namespace << ")\n";
  }
  out << "\n";
}

// kbuild --define on the project's own targets: kernels, binding, tests,
// benchmarks. Not the harness library, which stays the same for every
// variant of kbuild tune (it is prebuilt and shared: harness_library.h).
void RenderDefines(const CMakePlan& plan, std::ostringstream& out) {
  if (plan.defines.empty()) return;
  std::vector<std::string> targets;
  for (const auto& k : plan.kernels) targets.push_back("kbuild_kernel_" + k.name);
  targets.push_back(kOpsTarget);
  if (plan.harness_cmake && !plan.test_sources.empty()) targets.push_back(kTestsTarget);
  if (plan.harness_cmake && !plan.benchmark_sources.empty()) targets.push_back(kBenchmarksTarget);
  out << "# kbuild --define\n";
  for (const std::string& target : targets) {
    out << "target_compile_definitions(" << target << " PRIVATE";
    for (const auto& [name, value] : plan.defines) out << " " << CMakeBracket(name + "=" + value);
    out << ")\n";
  }
}

// Every path the plan writes into CMakeLists.txt, for CheckPathsCMakeCanCarry.
std::vector<fs::path> PlannedPaths(const CMakePlan& plan) {
  std::vector<fs::path> out = {plan.generated_include_dir, plan.torch.torch_dir,
                               plan.torch.IncludeDir(), plan.torch.ApiIncludeDir(),
                               plan.torch.LibDir()};
  for (const auto& k : plan.kernels) {
    out.insert(out.end(), k.sources.begin(), k.sources.end());
    out.insert(out.end(), k.include_dirs.begin(), k.include_dirs.end());
  }
  for (const auto* list : {&plan.binding_sources, &plan.binding_include_dirs, &plan.test_sources,
                           &plan.benchmark_sources}) {
    out.insert(out.end(), list->begin(), list->end());
  }
  if (plan.ccache) out.push_back(*plan.ccache);
  if (plan.harness_cmake) out.push_back(*plan.harness_cmake);
  if (plan.harness_prebuilt_dir) out.push_back(*plan.harness_prebuilt_dir);
  return out;
}

// build.toml entries were checked where they are written; this also covers
// the project folder itself, tests/ and benchmarks/ files, and torch's paths.
Status CheckPathsCMakeCanCarry(const CMakePlan& plan) {
  for (const auto& p : PlannedPaths(plan)) {
    const std::string text = p.generic_string();
    if (auto reason = CMakeUnsupportedPathReason(text)) {
      return MakeError(ExitCode::kUsage, "cannot build from '" + text + "': it contains " + *reason,
                       "rename the file or folder: the generated CMake cannot name it exactly");
    }
  }
  return {};
}

}  // namespace

Expected<std::vector<fs::path>> HarnessCppFiles(const FileSystem& fs, const fs::path& dir) {
  const auto refused = [](const fs::path& path, const std::string& what) {
    Error e = MakeError(ExitCode::kUsage, what + " where the harness compiles sources",
                        "replace it with the file or folder itself: a link may lead outside "
                        "the project");
    e.path = path.string();
    return e;
  };
  const FileKind kind = fs.KindOf(dir);
  if (kind == FileKind::kMissing) return std::vector<fs::path>{};
  if (kind != FileKind::kDirectory) return refused(dir, "not a real folder (a link or a file)");
  std::vector<fs::path> out;
  for (const TreeEntry& entry : fs.ListEntries(dir)) {
    if (entry.kind != FileKind::kRegular) {
      return refused(dir / entry.relative, FileKindName(entry.kind));
    }
    if (entry.relative.extension() == ".cpp" && !entry.relative.has_parent_path()) {
      out.push_back(dir / entry.relative);
    }
  }
  return out;
}

std::string RenderTorchVariables(const TorchEnv& torch) {
  const fs::path lib = torch.LibDir();
  std::ostringstream out;
  out << "# libtorch from " << torch.torch_dir.generic_string() << " (found by " << torch.found_by
      << ").\n"
      << "set(KBUILD_TORCH_INCLUDE_DIRS"
      << QuoteList({torch.IncludeDir(), torch.ApiIncludeDir()}, "  ") << ")\n"
      << "set(KBUILD_TORCH_LIBRARY_DIR " << CMakeBracket(lib.generic_string()) << ")\n"
      << "set(KBUILD_TORCH_LIBRARIES";
  for (const char* name :
       {"libc10.so", "libtorch.so", "libtorch_cpu.so", "libtorch_cuda.so", "libc10_cuda.so"}) {
    out << "\n  " << CMakeBracket((lib / name).generic_string());
  }
  out << ")\n";
  return out.str();
}

std::vector<std::string> PlannedCapabilities(const CMakePlan& plan) {
  std::vector<std::string> caps;
  for (const auto& k : plan.kernels) {
    for (const auto& c : k.capabilities) {
      if (std::find(caps.begin(), caps.end(), c) == caps.end()) caps.push_back(c);
    }
  }
  return caps;
}

Expected<CMakePlan> PlanFromConfig(const ProjectConfig& config, const FileSystem& fs,
                                   const TorchEnv& torch, const std::string& op_namespace,
                                   const fs::path& generated_include_dir,
                                   const GenerateOptions& options) {
  CMakePlan plan;
  plan.python_name = config.PythonName();
  plan.op_namespace = op_namespace;
  plan.generated_include_dir = generated_include_dir;
  plan.torch = torch;
  plan.debug = options.debug;
  plan.ccache = options.ccache;
  plan.defines = options.defines;
  for (const auto& kc : config.kernels) {
    if (!kc.backend.empty() && kc.backend != "cuda") continue;  // this build targets CUDA only
    KernelTarget k;
    k.name = kc.name;
    k.sources = Absolute(config.root, kc.src, /*compiled_only=*/true);
    k.include_dirs = Absolute(config.root, kc.include, false);
    k.capabilities = !options.arch_override.empty()  ? options.arch_override
                     : !kc.cuda_capabilities.empty() ? kc.cuda_capabilities
                                                     : std::vector<std::string>{"9.0"};
    k.cuda_flags = kc.cuda_flags;
    k.cxx_flags = kc.cxx_flags;
    if (k.sources.empty()) continue;  // header-only kernel
    plan.kernels.push_back(std::move(k));
  }
  if (config.torch) {
    plan.binding_sources = Absolute(config.root, config.torch->src, true);
    plan.binding_include_dirs = Absolute(config.root, config.torch->include, false);
  }
  if (plan.binding_sources.empty()) {
    Error e =
        MakeError(ExitCode::kUsage, "no binding source to build ([torch] src lists no .cpp file)",
                  "add [torch] src = [\"torch-ext/torch_binding.cpp\", "
                  "\"torch-ext/torch_binding.h\"] to build.toml");
    e.path = "build.toml";
    return e;
  }
  if (options.harness_cmake && fs.Exists(*options.harness_cmake)) {
    plan.harness_cmake = options.harness_cmake;
    plan.harness_prebuilt_dir = options.harness_prebuilt_dir;
    auto tests = HarnessCppFiles(fs, config.root / "tests");
    if (!tests) return tests.error();
    plan.test_sources = std::move(*tests);
    auto benchmarks = HarnessCppFiles(fs, config.root / "benchmarks");
    if (!benchmarks) return benchmarks.error();
    plan.benchmark_sources = std::move(*benchmarks);
  }
  return plan;
}

Expected<std::string> RenderCMakeLists(const CMakePlan& plan) {
  if (Status carried = CheckPathsCMakeCanCarry(plan); !carried) return carried.error();
  std::ostringstream out;
  out << "# Generated by kbuild from build.toml; rewritten by every kbuild build. Do not edit.\n"
      << "cmake_minimum_required(VERSION 3.22)\n"
      << "project(" << plan.python_name << " LANGUAGES CXX CUDA)\n\n"
      << "set(CMAKE_CXX_STANDARD 17)\nset(CMAKE_CXX_STANDARD_REQUIRED ON)\n"
      << "set(CMAKE_CUDA_STANDARD 17)\nset(CMAKE_CUDA_STANDARD_REQUIRED ON)\n"
      << "# Targets come from the -gencode flags below, not from CMake's arch list.\n"
      << "set(CMAKE_CUDA_ARCHITECTURES OFF)\n";
  if (plan.ccache) {
    out << "set(CMAKE_CUDA_COMPILER_LAUNCHER " << CMakeBracket(plan.ccache->generic_string())
        << ")\n"
        << "set(CMAKE_CXX_COMPILER_LAUNCHER " << CMakeBracket(plan.ccache->generic_string())
        << ")\n";
  }
  out << "find_package(CUDAToolkit REQUIRED)\n\n";
  RenderTorchTarget(plan, out);
  for (const auto& k : plan.kernels) {
    auto flags = CudaFlagsFor(k, plan.debug);
    if (!flags) return flags.error();
    RenderKernel(k, *flags, plan.debug, out);
  }
  RenderOpsLibrary(plan, out);
  RenderHarnessTargets(plan, out);
  RenderDefines(plan, out);
  return out.str();
}

}  // namespace kb
