// The part of a build that kbuild build, test and bench share: load
// build.toml, discover torch and CUDA, name the op namespace, render the
// generated CMake project, then build one target of it. What happens after
// (the Hub variant, running tests or benchmarks) stays with each command.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/build_runner.h"
#include "core/cmake_gen.h"
#include "core/config.h"
#include "core/cuda_env.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/paths.h"
#include "core/process.h"
#include "core/torch_env.h"

namespace kb {

struct PipelineOptions {
  std::filesystem::path project_dir = ".";
  std::vector<std::string> arch;  // --arch: replaces cuda-capabilities
  bool debug = false;
  std::vector<std::string> defines;  // --define NAME=VALUE, checked by PrepareBuild
};

// Everything known before the compiler runs.
struct PreparedBuild {
  BuildPaths paths;
  ProjectConfig config;
  TorchEnv torch;
  CudaEnv cuda;
  std::string variant;       // torch<MAJ><MIN>-cxx11-cu<VER>-x86_64-linux
  std::string op_namespace;  // TORCH_EXTENSION_NAME
  CMakePlan plan;
  std::string cmake_lists;
  std::string registration_h;
  std::vector<std::string> warnings;  // e.g. torch/nvcc CUDA major mismatch
};

Expected<PreparedBuild> PrepareBuild(FileSystem& fs, ProcessRunner& runner,
                                     const PipelineOptions& options);

// The torch (without the python that found it) and CUDA identity a build tree is configured
// for: a change rebuilds build/cmake and keys another shared harness library.
nlohmann::json ToolchainKey(const TorchEnv& torch, const CudaEnv& cuda);

struct TargetBuild {
  std::string target;  // kOpsTarget, kTestsTarget or kBenchmarksTarget
  int jobs = 0;
  bool verbose = false;
  std::function<void(const std::string&)> progress;
};

// Runs (configure and) `cmake --build --target <target>`; exit 3 on a
// compile or link error with the first compiler error.
Expected<BuildOutcome> BuildTarget(FileSystem& fs, ProcessRunner& runner,
                                   const PreparedBuild& prepared, const TargetBuild& build);

// A text resource under tools/kbuild/resources (exit 5 with a KBUILD_HOME
// hint when it cannot be read).
Expected<std::string> ReadResource(const FileSystem& fs, const std::string& name);

}  // namespace kb
