// build.toml: the Hugging Face kernel-builder schema (ANCHORS.md), parsed and
// validated. Unknown keys are errors with file:line:column and the nearest
// valid key, exactly as kernel-builder rejects them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/toml_location.h"

namespace kb {

struct KernelConfig {
  std::string name;                            // [kernel.<name>]
  std::string backend;                         // "cuda", ...
  std::vector<std::string> depends;            // e.g. ["torch"]
  std::vector<std::string> src;                // relative to the project root
  std::vector<std::string> include;            // include dirs, relative
  std::vector<std::string> cuda_capabilities;  // e.g. ["9.0"]
  std::vector<std::string> cuda_flags;
  std::vector<std::string> cxx_flags;
  std::optional<std::string> cuda_minver;
  std::vector<std::string> rocm_archs;  // backend = "rocm"
  std::vector<std::string> hip_flags;
  std::vector<std::string> sycl_flags;        // backend = "xpu"
  SourceLocation location;                    // of the [kernel.<name>] header
  std::vector<SourceLocation> src_locations;  // one per src entry
  std::vector<SourceLocation> include_locations;
  std::vector<SourceLocation> cuda_capability_locations;
};

struct TorchConfig {
  std::vector<std::string> src;  // binding sources (torch-ext/torch_binding.cpp, .h)
  std::vector<std::string> include;
  std::vector<std::string> pyext;      // extra files copied into the Python package
  std::vector<std::string> cxx_flags;  // always empty: kernel-builder has no [torch] cxx-flags
  std::optional<std::string> minver, maxver;
  SourceLocation location;
  std::vector<SourceLocation> src_locations;
  std::vector<SourceLocation> include_locations;
};

struct HubConfig {
  std::optional<std::string> repo_id;
  std::optional<std::string> branch;
};

struct ProjectConfig {
  std::filesystem::path root;          // the project directory
  std::filesystem::path file;          // root / "build.toml"
  std::string name;                    // [general] name: lowercase letters, digits, dashes
  std::vector<std::string> backends;   // [general] backends
  int version = 1;                     // [general] version (major)
  std::optional<std::string> license;  // SPDX id
  std::optional<int> edition;
  std::optional<std::string> upstream, source;
  std::vector<std::string> python_depends;
  std::optional<HubConfig> hub;
  std::optional<std::string> cuda_minver, cuda_maxver;  // [general.cuda]
  std::vector<std::string> cuda_python_depends;         // [general.cuda] python-depends
  std::vector<std::string> xpu_python_depends;          // [general.xpu] python-depends
  std::optional<TorchConfig> torch;
  std::vector<KernelConfig> kernels;  // in file order

  // The Python module name: name with '-' replaced by '_'.
  std::string PythonName() const;
};

// Parses and validates <project_dir>/build.toml (types, required keys, name
// rules, unknown keys). Does not look at other files: see project_checks.h.
Expected<ProjectConfig> LoadProjectConfig(const FileSystem& fs,
                                          const std::filesystem::path& project_dir);

// Parses build.toml text (for unit tests and for kbuild check).
// `display_path` is what errors print as the file name (usually "build.toml").
Expected<ProjectConfig> ParseProjectConfig(const std::string& text,
                                           const std::string& display_path);

// Every problem in build.toml, not only the first. `config` is set only when
// `errors` is empty; warnings (e.g. no license) never block.
struct ConfigResult {
  std::optional<ProjectConfig> config;
  std::vector<Error> errors;
  std::vector<Error> warnings;
};

ConfigResult ParseProjectConfigAll(const std::string& text, const std::string& display_path);
ConfigResult LoadProjectConfigAll(const FileSystem& fs, const std::filesystem::path& project_dir);

// "build.toml" for project_dir ".", otherwise "<project_dir>/build.toml".
std::string ConfigDisplayPath(const std::filesystem::path& project_dir);

}  // namespace kb
