// The shared harness library: kbuild_harness_core and kbuild_harness (~24 files that include
// torch's headers, ~5 s each) are built once per torch, CUDA, kbuild version and debug flag
// into KBUILD_CACHE_DIR/harness/<key>/, and every kernel project's generated CMake imports
// them from there (harness.cmake, KBUILD_HARNESS_PREBUILT_DIR). A project's first kbuild test
// or bench, and each variant kbuild tune builds in its own copy, then compiles only its own
// tests and benchmarks.
//
// The folder holds src/CMakeLists.txt (generated), build/ (its Ninja tree), build.log, the two
// libraries, and `complete`, written last: without it the folder is built (again).
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/process.h"
#include "core/torch_env.h"

namespace kb {

// What the library is built from; its key hashes all of it.
struct HarnessLibraryInputs {
  std::filesystem::path harness_dir;  // <KBUILD_HOME>/tools/harness: harness.cmake, src/, include/
  nlohmann::json toolchain_key;       // ToolchainKey(): torch, nvcc, CUDA
  bool debug = false;                 // kbuild build --debug: the harness gets -O0 -g too
};

// sha256 (hex) over harness.cmake, every file below src/ and include/ (sorted, each read up to
// a limit), the toolchain key, the debug flag and kbuild's version. Fails, naming the file and
// how to point kbuild at its data (KBUILD_HOME), when a harness file cannot be read.
Expected<std::string> HarnessLibraryKey(const FileSystem& fs, const HarnessLibraryInputs& inputs);

// <cache_dir>/harness/<the key's first 16 hex digits>: KBUILD_HARNESS_PREBUILT_DIR.
Expected<std::filesystem::path> HarnessLibraryDir(const FileSystem& fs,
                                                  const HarnessLibraryInputs& inputs,
                                                  const std::filesystem::path& cache_dir);

struct HarnessLibraryBuild {
  std::filesystem::path dir;            // HarnessLibraryDir()
  std::filesystem::path harness_cmake;  // included by the generated CMakeLists.txt
  TorchEnv torch;                       // its KBUILD_TORCH_* variables
  bool debug = false;
  std::filesystem::path nvcc;  // CMAKE_CUDA_COMPILER, as the project's build has it
  std::optional<std::filesystem::path> ccache;
  int jobs = 0;  // 0 = Ninja's default
  bool verbose = false;
  std::function<void(const std::string&)> progress;  // may be empty
};

// <dir>/src/CMakeLists.txt: the project's KBUILD_TORCH_* variables, then harness.cmake, with
// the libraries written to <dir> itself.
std::string RenderHarnessLibraryCMake(const HarnessLibraryBuild& build);

// Nothing to do when <dir>/complete and both libraries are there. Otherwise takes the lock
// <dir>.lock, waiting while another kbuild holds it (kbuild tune starts 12 builds at once: one
// builds, the others wait and find it complete), then configures and builds it. A failure
// writes no stamp (the next run builds again) and is exit 3 with the first compiler error, or
// the last lines of CMake's output, naming <dir>/build.log.
Status EnsureHarnessLibrary(FileSystem& fs, ProcessRunner& runner,
                            const HarnessLibraryBuild& build);

// The stamp written after a successful build.
inline constexpr const char* kHarnessLibraryStamp = "complete";

}  // namespace kb
