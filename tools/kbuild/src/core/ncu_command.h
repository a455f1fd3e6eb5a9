// Finding Nsight Compute and the command line kbuild profile runs it with:
// one benchmark case, the project's own kernels only (not the harness's
// spin/empty kernels, not torch's input or baseline kernels), one launch after
// a few warm-up launches, CSV on stdout.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/process.h"

namespace kb {

struct NcuSearch {
  std::function<std::optional<std::string>(const std::string&)> get_env = GetEnv;
  std::function<std::optional<std::filesystem::path>(const std::string&)> find_on_path = FindOnPath;
  std::function<bool(const std::filesystem::path&)> is_file;  // default: a regular file
};

struct NcuLocation {
  std::filesystem::path path;
  std::string found_by;  // "KBUILD_NCU", "PATH", "CUDA_HOME", "/usr/local/cuda"
};

struct NcuDiscovery {
  std::optional<NcuLocation> ncu;
  std::string problem;  // why none was found: what was searched
};

// KBUILD_NCU, else ncu on PATH, else $CUDA_HOME/bin/ncu, else /usr/local/cuda/bin/ncu.
NcuDiscovery FindNcu(const NcuSearch& search = {});

// cuobjdump for the SASS check: the CUDA Toolkit's (cuda_bin: its bin/),
// else one on PATH, else the PyPI wheel beside torch (pip install
// nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm puts them in
// site-packages/nvidia/cu<major>/bin, or
// nvidia/cuda_cuobjdump/bin before CUDA 13): toolkits without cuobjdump
// (the CUDA 13 developer image) still get the check. Empty when none.
std::filesystem::path FindCuobjdump(const std::filesystem::path& cuda_bin,
                                    const std::filesystem::path& torch_dir,
                                    const std::string& cuda_major, const NcuSearch& search = {});

// The metric sets of --metrics.
inline constexpr const char* kMetricSets[] = {"default", "full"};

struct NcuRequest {
  std::filesystem::path ncu;
  std::filesystem::path binary;  // the benchmark binary
  std::string case_filter;       // --benchmark_filter (profile_cases.h)
  std::string metric_set = "default";
  // --kernel REGEX (ncu matches it against the function name); else the
  // project's kernels by mangled name (from the SASS); else no filter.
  std::optional<std::string> kernel_regex;
  std::vector<std::string> project_kernels;  // mangled names
  int launch_skip = 3;
  int launch_count = 1;
};

// The argv: ncu options, then the benchmark binary and its filter.
std::vector<std::string> NcuCommand(const NcuRequest& request);

// Harness kernels that are never the kernel under test (tools/harness/src/utility_kernels.cpp).
bool IsHarnessKernel(std::string_view name);

// ncu refused the GPU's performance counters (ERR_NVGPUCTRPERM).
bool CountersNotPermitted(std::string_view ncu_output);

}  // namespace kb
