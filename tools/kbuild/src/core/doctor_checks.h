// kbuild doctor's checks: GPU(s), driver, nvcc, torch, CUDA major match,
// cmake, ninja, ccache. Each problem carries a hint. No GPU is fine on a
// dev machine (exit 0) unless a GPU is required; no nvcc or torch is exit 4.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/cuda_env.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"
#include "core/torch_env.h"

namespace kb {

enum class CheckLevel { kOk, kInfo, kWarning, kProblem };

struct DoctorCheck {
  std::string name;  // "gpu", "driver", "nvcc", "torch", "cuda-match", "cmake", "ninja", "ccache"
  CheckLevel level = CheckLevel::kOk;
  std::string summary;  // one line for the table
  std::string hint;     // how to fix, for warnings and problems
};

struct DoctorOptions {
  bool bench = true;         // measure copy bandwidth when not cached
  bool require_gpu = false;  // no GPU -> exit 4
  std::filesystem::path cache_dir;
  std::string probe_source;  // resources/gpu_probe.cu
  TorchSearch torch_search;
  CudaSearch cuda_search;
};

struct DoctorResult {
  std::vector<DoctorCheck> checks;
  nlohmann::json data = nlohmann::json::object();  // gpus, torch, cuda, tools for --json
  ExitCode exit = ExitCode::kOk;
};

DoctorResult RunDoctor(FileSystem& fs, ProcessRunner& runner, const DoctorOptions& options);

const char* CheckLevelName(CheckLevel level);  // "ok", "info", "warning", "problem"

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159  ..." -> "580.159".
std::string ParseDriverVersion(const std::string& proc_version_text);

}  // namespace kb
