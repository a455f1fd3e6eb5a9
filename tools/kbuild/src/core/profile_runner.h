// kbuild profile's work after the build: read the project library's SASS and
// resource usage (cuobjdump), run ncu on one benchmark case, summarize each
// profiled kernel of the project, and pair it with its SASS. When ncu is
// missing, refuses the counters or profiles nothing, the outcome says why and
// keeps what the SASS shows; only when neither could be read is it an error.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/fs.h"
#include "core/ncu_command.h"
#include "core/process.h"
#include "core/profile_summary.h"
#include "core/sass_check.h"

namespace kb {

// Why ncu is not run; each has its own hint.
enum class NcuUnavailable { kNotFound, kNoGpu };

struct ProfileRunOptions {
  std::optional<NcuLocation> ncu;  // nothing: SASS only, `ncu_problem` says why
  std::string ncu_problem;         // why ncu is not run (no GPU, not found)
  NcuUnavailable ncu_unavailable = NcuUnavailable::kNotFound;
  std::filesystem::path cuobjdump;  // empty when not found
  std::filesystem::path project_library;
  NcuRequest request;  // ncu path, binary, case filter, set, launches (project_kernels filled here)
  std::map<std::string, std::string> env;  // for the benchmark binary
  std::filesystem::path csv;               // build/profile/<case>.csv: ncu's whole output
  std::filesystem::path log;               // build/logs/profile.log
  double timeout_seconds = 600;
  ProfileContext context;
};

struct ProfiledKernel {
  ProfileSummary summary;
  std::optional<SassFunction> sass;  // the project kernel ncu profiled, when found
};

struct ProfileOutcome {
  bool ncu_ran = false;     // ncu ran and its CSV held kernels
  std::string ncu_problem;  // why there are no counters ("" when there are)
  std::string ncu_hint;     // how to get them
  std::vector<std::string> ncu_command;
  std::vector<ProfiledKernel> kernels;  // the project's kernels ncu profiled
  int harness_kernels_skipped = 0;
  std::vector<SassFunction> sass;  // every kernel of the project library
  std::string sass_problem;        // why there is no SASS check
};

// Exit 4 when neither ncu nor cuobjdump gave anything; other failures are in the outcome.
Expected<ProfileOutcome> RunProfile(FileSystem& fs, ProcessRunner& runner,
                                    ProfileRunOptions options);

// The SASS kernel ncu profiled: the one of the same mangled name (kernel_names.h
// SameKernel), or nullptr; never one of several instantiations picked by base name.
const SassFunction* MatchSass(const ProfileSummary& summary, const std::vector<SassFunction>& sass);

// How to get counters when ncu cannot run for `why`.
std::string NcuUnavailableHint(NcuUnavailable why);

}  // namespace kb
