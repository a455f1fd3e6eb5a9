// Finding torch: KBUILD_TORCH_DIR, then Torch_DIR, then a python3 that can
// import torch ($KBUILD_PYTHON, python3 on PATH, the project's and kbuild's
// .venv). The python answer is cached in build/torch-env.json so repeated
// builds do not pay interpreter start-up.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/kbuild_home.h"
#include "core/process.h"

namespace kb {

struct TorchEnv {
  std::string version;              // torch.__version__, e.g. "2.11.0+cu130"
  std::string cuda;                 // torch.version.cuda, e.g. "13.0"; empty for CPU-only torch
  bool cxx11_abi = true;            // torch._C._GLIBCXX_USE_CXX11_ABI
  std::filesystem::path torch_dir;  // the package dir holding include/ and lib/
  std::filesystem::path cmake_prefix_path;  // torch.utils.cmake_prefix_path (share/cmake)
  std::filesystem::path python;  // the interpreter that answered; empty when found by env
  std::string found_by;          // "KBUILD_TORCH_DIR", "Torch_DIR" or "python"

  std::filesystem::path IncludeDir() const { return torch_dir / "include"; }
  std::filesystem::path ApiIncludeDir() const {
    return torch_dir / "include" / "torch" / "csrc" / "api" / "include";
  }
  std::filesystem::path LibDir() const { return torch_dir / "lib"; }
};

nlohmann::json TorchEnvToJson(const TorchEnv& env);

// The outside world discovery looks at, replaceable in tests.
struct TorchSearch {
  std::filesystem::path project_dir;
  std::filesystem::path kbuild_root;  // kbuild's source tree (its .venv is a candidate)
  // An installed kbuild's bin/ (a pip-installed kbuild sits beside the venv's python3).
  std::optional<std::filesystem::path> installed_bin_dir = InstalledExecutableDir();
  std::optional<std::filesystem::path> cache_file;  // build/torch-env.json
  std::function<std::optional<std::string>(const std::string&)> get_env = GetEnv;
  std::function<std::optional<std::filesystem::path>(const std::string&)> find_on_path = FindOnPath;
  // Modification time used in the cache key; nothing when the file is missing.
  std::function<std::optional<long long>(const std::filesystem::path&)> mtime;
};

// Exit 4 with the env vars and the pip command in the hint when nothing has torch.
Expected<TorchEnv> DiscoverTorch(FileSystem& fs, ProcessRunner& runner, const TorchSearch& search);

// Reads torch/version.py (`__version__ = '2.11.0+cu130'`, `cuda: Optional[str] = '13.0'`).
Expected<TorchEnv> TorchEnvFromDir(const FileSystem& fs, const std::filesystem::path& torch_dir,
                                   const std::string& found_by);

// The JSON line printed by the discovery snippet, parsed.
Expected<TorchEnv> ParseTorchProbeOutput(const std::string& output,
                                         const std::filesystem::path& python);

// The python program that prints torch's facts as one JSON line.
extern const char* const kTorchProbeSnippet;

}  // namespace kb
