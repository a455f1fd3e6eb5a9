// The generated CMake project under build/cmake/: plain text rendered from a
// CMakePlan (unit-tested as text). Kernel .cu files compile WITHOUT torch
// headers; the binding compiles with them; both link into <namespace>.so.
// Paths come from discovery: no find_package(Torch), which is slow.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/macro_defines.h"
#include "core/torch_env.h"

namespace kb {

struct KernelTarget {
  std::string name;                                 // [kernel.<name>]
  std::vector<std::filesystem::path> sources;       // absolute; headers are not listed
  std::vector<std::filesystem::path> include_dirs;  // absolute
  std::vector<std::string> capabilities;            // "9.0", ...
  std::vector<std::string> cuda_flags;
  std::vector<std::string> cxx_flags;
};

struct CMakePlan {
  std::string python_name;
  std::string op_namespace;                     // TORCH_EXTENSION_NAME and the .so name
  std::filesystem::path generated_include_dir;  // holds registration.h
  std::vector<KernelTarget> kernels;
  std::vector<std::filesystem::path> binding_sources;       // absolute .cpp files
  std::vector<std::filesystem::path> binding_include_dirs;  // absolute
  TorchEnv torch;
  bool debug = false;
  std::optional<std::filesystem::path> ccache;
  std::vector<std::filesystem::path> test_sources;       // tests/*.cpp
  std::vector<std::filesystem::path> benchmark_sources;  // benchmarks/*.cpp
  std::optional<std::filesystem::path> harness_cmake;    // tools/harness/harness.cmake
  // The shared, prebuilt harness libraries (harness_library.h) the tests and benchmarks link:
  // KBUILD_HARNESS_PREBUILT_DIR for harness.cmake.
  std::optional<std::filesystem::path> harness_prebuilt_dir;
  std::vector<MacroDefine> defines;  // --define: compile definitions of every target
};

// Options of `kbuild build` that shape the generated project.
struct GenerateOptions {
  std::vector<std::string> arch_override;  // --arch: replaces every kernel's cuda-capabilities
  bool debug = false;
  std::optional<std::filesystem::path> ccache;
  std::optional<std::filesystem::path> harness_cmake;         // only used when it exists
  std::optional<std::filesystem::path> harness_prebuilt_dir;  // with harness_cmake
  std::vector<MacroDefine> defines;                           // --define NAME=VALUE (checked)
};

// The CMake target names the generated project declares (docs/CONTRACTS.md).
inline constexpr const char* kOpsTarget = "kbuild_ops";
inline constexpr const char* kTestsTarget = "kbuild_tests";
inline constexpr const char* kBenchmarksTarget = "kbuild_benchmarks";

// The .cpp files directly in `dir` (tests/, benchmarks/), which the harness compiles. They
// must be the project's own: the folder, or anything in it, as a symbolic link (to a file
// anywhere) or a FIFO is an error (exit 2) naming it. None when `dir` does not exist.
Expected<std::vector<std::filesystem::path>> HarnessCppFiles(const FileSystem& fs,
                                                             const std::filesystem::path& dir);

// Fills a plan from build.toml; `op_namespace` from OpNamespace().
Expected<CMakePlan> PlanFromConfig(const ProjectConfig& config, const FileSystem& fs,
                                   const TorchEnv& torch, const std::string& op_namespace,
                                   const std::filesystem::path& generated_include_dir,
                                   const GenerateOptions& options);

// build/cmake/CMakeLists.txt. Fails (exit 2) on an invalid capability.
Expected<std::string> RenderCMakeLists(const CMakePlan& plan);

// The KBUILD_TORCH_* variables tools/harness/harness.cmake reads, as set() lines: the
// project's CMake and the shared harness library's (harness_library.h) say the same.
std::string RenderTorchVariables(const TorchEnv& torch);

// Every capability the plan compiles for, deduplicated, in order ("9.0", "8.0").
std::vector<std::string> PlannedCapabilities(const CMakePlan& plan);

}  // namespace kb
