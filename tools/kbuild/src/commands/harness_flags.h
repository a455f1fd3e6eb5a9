// The build options kbuild test and kbuild bench share (they build the
// project like kbuild build before running its harness binary).
#pragma once

#include <CLI/CLI.hpp>
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
};

inline void AddHarnessBuildFlags(CLI::App& sub, HarnessBuildFlags& flags) {
  sub.add_option("--arch", flags.arch,
                 "CUDA capabilities to compile for, replacing cuda-capabilities (e.g. 9.0)")
      ->delimiter(',');
  AddDefineOption(sub, flags.defines);
  sub.add_option("-j,--jobs", flags.jobs, "Parallel compile jobs (default: Ninja's choice)");
  sub.add_flag("--verbose", flags.verbose, "Stream the compiler output to stderr");
  AddJsonFlag(sub, flags.json);
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
  options.progress = [&report](const std::string& line) { report.Progress(line); };
  return options;
}

}  // namespace kb
