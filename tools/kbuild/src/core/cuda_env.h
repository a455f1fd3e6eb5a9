// Finding the CUDA Toolkit: CUDA_HOME, then nvcc on PATH, then /usr/local/cuda.
// The version comes from `nvcc --version`, the targets it can compile for
// from `nvcc --list-gpu-arch`.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/process.h"

namespace kb {

struct CudaEnv {
  std::filesystem::path root;  // the toolkit root (holds bin/nvcc, include/, lib64/)
  std::filesystem::path nvcc;
  std::string version;             // "13.0" (release), from nvcc --version
  std::string build;               // "V13.0.88"
  std::string found_by;            // "CUDA_HOME", "PATH" or "/usr/local/cuda"
  std::vector<std::string> archs;  // "compute_90", ... from --list-gpu-arch
};

nlohmann::json CudaEnvToJson(const CudaEnv& env);

struct CudaSearch {
  std::function<std::optional<std::string>(const std::string&)> get_env = GetEnv;
  std::function<std::optional<std::filesystem::path>(const std::string&)> find_on_path = FindOnPath;
  std::filesystem::path default_root = "/usr/local/cuda";
};

// Exit 4 with a hint when no nvcc runs.
Expected<CudaEnv> DiscoverCuda(ProcessRunner& runner, const CudaSearch& search = {});

// "Cuda compilation tools, release 13.0, V13.0.88" -> {"13.0", "V13.0.88"}.
std::optional<std::pair<std::string, std::string>> ParseNvccVersion(const std::string& output);

}  // namespace kb
