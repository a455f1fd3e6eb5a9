// Checks of a parsed project that need its files: listed sources exist,
// kernel sources stay free of torch headers, no pybind11, ops are registered
// with the dispatcher, the Python package exists, and every cuda-capability
// is one the installed nvcc can compile for. All findings are collected.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/cuda_env.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"

namespace kb {

struct CheckFindings {
  std::vector<Error> errors;  // exit code 1 (convention) or 4 (environment)
  std::vector<Error> warnings;
};

// Sources, includes, torch headers, pybind11, registration, __init__.py.
CheckFindings CheckProjectFiles(const FileSystem& fs, const ProjectConfig& config);

// cuda-capabilities of cuda kernels against the targets nvcc lists
// ("compute_90" or "90"); errors point at the entry in build.toml.
CheckFindings CheckCudaCapabilities(const FileSystem& fs, const ProjectConfig& config,
                                    const std::vector<std::string>& nvcc_archs);

// The same against the installed nvcc (found as DiscoverCuda finds it). When
// no nvcc runs, the result is one environment error (exit 4); nvcc is not run
// at all when no kernel lists cuda-capabilities.
CheckFindings CheckCudaCapabilitiesWithNvcc(const FileSystem& fs, const ProjectConfig& config,
                                            ProcessRunner& runner, const CudaSearch& search = {});

// "compute_90" -> "9.0", "compute_100" -> "10.0"; the capability spelling.
std::string ArchToCapability(const std::string& arch);

// Everything `kbuild check` does: build.toml, then (when it is valid) the
// file checks, the capability check against the installed nvcc, and the
// harness's op names (warnings).
struct ProjectCheckResult {
  std::string config_path;              // "build.toml" as errors print it
  std::optional<ProjectConfig> config;  // set when build.toml is valid
  std::vector<Error> errors;
  std::vector<Error> warnings;
};

ProjectCheckResult CheckProject(const FileSystem& fs, ProcessRunner& runner,
                                const std::filesystem::path& project_dir,
                                const CudaSearch& search = {});

// 2 when build.toml is invalid, else 1 when a check failed, else 4 when only
// the environment kept a check from running (no nvcc), else 0.
ExitCode CheckExitCode(const std::vector<Error>& errors);

// "check: 2 errors, 1 warning" or "check: ok (rmsnorm: 2 kernels, 3 sources)".
std::string CheckSummary(const ProjectCheckResult& result);

}  // namespace kb
