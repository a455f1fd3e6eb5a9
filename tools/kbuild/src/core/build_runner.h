// Runs the generated CMake project: writes its files (only when changed),
// wipes build/cmake when it was configured for another torch/CUDA, configures
// only when needed, then `cmake --build` (Ninja). Full output goes to
// build/logs/build.log; a failure becomes the first compiler error (exit 3).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "core/fs.h"
#include "core/paths.h"
#include "core/process.h"

namespace kb {

struct BuildRequest {
  BuildPaths paths;
  std::string cmake_lists;       // rendered build/cmake/CMakeLists.txt
  std::string registration_h;    // resources/registration.h
  nlohmann::json toolchain_key;  // torch + CUDA identity; a change forces a fresh build/cmake
  std::filesystem::path nvcc;
  std::string target;    // CMake target to build (kbuild_ops for kbuild build)
  int jobs = 0;          // 0 = Ninja's default
  bool verbose = false;  // stream compiler output to stderr
  // Human progress lines ("configure 3.1 s", ...); may be empty.
  std::function<void(const std::string&)> progress;
};

struct BuildOutcome {
  // Why build/cmake was wiped and regenerated (another torch/CUDA, or another
  // folder); empty when it was reused.
  std::string wipe_reason;
  bool configured = false;  // cmake configure ran
  int compiled = 0;         // translation units compiled
  bool linked = false;
  double configure_seconds = 0;
  double build_seconds = 0;
  std::string log;  // path of build.log, relative to the project
};

Expected<BuildOutcome> RunBuild(FileSystem& fs, ProcessRunner& runner, const BuildRequest& request);

// "compile 2 files, link: 14.1 s" (the progress line after the build).
std::string CompileSummary(const BuildOutcome& outcome);

// A failed `step` ("cmake configure", "cmake --build"): the first compiler error in its output
// (exit 3, located relative to `project_dir` when inside it), else "<step> failed" with the
// output's last lines; the hint names `log`, then `stale_hint` (may be empty).
Error BuildStepFailure(const FileSystem& fs, const std::string& output, const std::string& step,
                       const std::filesystem::path& project_dir, const std::string& log,
                       const std::string& stale_hint);

// cmake could not be started (exit 4, with how to install it).
Error CMakeNotFound();

// How many objects Ninja compiled and whether it linked, from its status lines.
void CountBuildSteps(const std::string& ninja_output, int* compiled, bool* linked);

}  // namespace kb
