// kbuild package: a built project -> an upload-ready Kernel Hub folder
// (default dist/<name>/): build/<variant>/ for every verified variant, the
// sources build.toml names, tests/ and benchmarks/, a generated README.md
// card and kbuild's marker. All or nothing: any error leaves no folder and
// no staging folder behind. The upload itself is left to the user.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// Bounds on what one package may read (the project is hostile input).
inline constexpr std::uintmax_t kMaxPackageBytes = 8ull << 30;
inline constexpr size_t kMaxPackageFiles = 20000;

struct PackageRequest {
  std::filesystem::path project;
  std::string out;      // --out, relative to the project; "" = dist/<name>
  std::string repo_id;  // --repo-id; "" = build.toml [general.hub] repo-id
  bool force = false;
  std::string kbuild_version;  // written into the marker
};

struct PackagedFile {
  std::string path;  // relative to the package folder, '/'-separated
  std::uintmax_t bytes = 0;
};

struct PackagedVariant {
  std::string name;
  std::vector<std::string> archs;
  std::string op_namespace;
  size_t files = 0;
};

struct PackageResult {
  std::filesystem::path relative_dir;  // DIR relative to the project
  std::filesystem::path dir;           // project / relative_dir
  bool replaced = false;               // an earlier package was replaced (--force)
  std::vector<PackagedFile> files;     // everything written, sorted
  std::uintmax_t bytes = 0;
  std::vector<PackagedVariant> variants;
  std::string repo_id;
  std::string repo_id_source;  // "--repo-id", "build.toml", "placeholder"
  std::string revision;        // v<version>: the branch kernels' get_kernel(version=) reads
  std::optional<std::string> bench_header;  // the recorded run's line; none = no result
  std::vector<std::string> warnings;
};

Expected<PackageResult> MakePackage(FileSystem& fs, const PackageRequest& request);

// "hf upload <repo-id> <dir> . --repo-type kernel --revision v<version>"
// (huggingface_hub's CLI; creates the repo and the branch when missing).
std::string UploadCommand(const PackageResult& result, const std::filesystem::path& shown_dir);

// The command-specific keys of `kbuild package --json` (references/kbuild-output.md).
nlohmann::json PackageResultJson(const PackageResult& result, const std::string& upload_command);

}  // namespace kb
