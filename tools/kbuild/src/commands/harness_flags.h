// The build options kbuild test and kbuild bench share (they build the
// project like kbuild build before running its harness binary), and
// --build-only, which stops after that build.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "commands/command.h"
#include "core/harness_build.h"
#include "core/report.h"

namespace kb {

struct HarnessBuildFlags {
  std::vector<std::string> arch;
  std::vector<std::string> defines;
  int jobs = 0;
  bool verbose = false;
  bool json = false;
  bool build_only = false;
};

// Whether a command offers --build-only (test and bench; profile needs its run).
enum class BuildOnlyFlag { kNo, kYes };

inline void AddHarnessBuildFlags(CLI::App& sub, HarnessBuildFlags& flags,
                                 BuildOnlyFlag build_only = BuildOnlyFlag::kNo) {
  sub.add_option("--arch", flags.arch,
                 "CUDA capabilities to compile for, replacing cuda-capabilities (e.g. 9.0)")
      ->delimiter(',');
  AddDefineOption(sub, flags.defines);
  sub.add_option("-j,--jobs", flags.jobs, "Parallel compile jobs (default: Ninja's choice)");
  sub.add_flag("--verbose", flags.verbose, "Stream the compiler output to stderr");
  if (build_only == BuildOnlyFlag::kYes) {
    sub.add_flag("--build-only", flags.build_only,
                 "Compile and link the binaries, then stop (exit 0) without looking for a GPU: "
                 "compile here, run on a GPU machine later (the run then compiles nothing)");
  }
  AddJsonFlag(sub, flags.json);
}

// The exit-code line of --help for test and bench's --build-only.
inline constexpr const char* kBuildOnlyExitCodes =
    "With --build-only: 0 built, 2 bad build.toml or none to build, 3 compile/link error, "
    "4 no nvcc or no torch (no GPU needed), 6 another kbuild is building this project, "
    "130/143 stopped by Ctrl-C/SIGTERM.";

// The --help line of test and bench on what they compile; `sources` is "tests/*.cpp" or
// "benchmarks/*.cpp".
inline std::string HarnessCompileNote(const std::string& sources) {
  return "Compiles: the project's kernels, binding and " + sources +
         "; the harness library they link is built once per torch, CUDA and kbuild version "
         "into KBUILD_CACHE_DIR/harness/ and shared by every project and kbuild tune "
         "variant.\n";
}

// Options for BuildHarness from the shared flags; progress goes to `report`.
inline HarnessBuildOptions MakeHarnessBuildOptions(const GlobalOptions& global,
                                                   const HarnessBuildFlags& flags, HarnessKind kind,
                                                   Report& report) {
  HarnessBuildOptions options;
  options.pipeline.project_dir = global.project_dir;
  options.pipeline.arch = flags.arch;
  options.pipeline.defines = flags.defines;
  options.kind = kind;
  options.jobs = flags.jobs;
  options.verbose = flags.verbose;
  options.build_only = flags.build_only;
  options.progress = [&report](const std::string& line) { report.Progress(line); };
  return options;
}

// Ends a --build-only run: the binary and the compile summary, and with
// --json the build keys plus `seconds` (the whole command, from `start`).
inline int FinishBuildOnly(Report& report, const HarnessBuild& built,
                           std::chrono::steady_clock::time_point start) {
  for (const auto& warning : built.warnings) report.Warning(warning);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.Line(BuiltHarnessLine(built));
  report.data().update(BuiltHarnessToJson(built));
  report.data()["seconds"] = seconds;
  return report.Finish();
}

}  // namespace kb
