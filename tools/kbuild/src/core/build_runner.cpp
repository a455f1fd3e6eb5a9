#include "core/build_runner.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include "core/compiler_errors.h"
#include "core/json_fields.h"
#include "core/report.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f s", s);
  return buf;
}

void Say(const BuildRequest& r, const std::string& text) {
  if (r.progress) r.progress(text);
}

// What build/cmake/kbuild-key.json records: the torch/CUDA identity and the
// folder CMake was configured in (its cache holds absolute paths).
nlohmann::json CmakeKey(const BuildRequest& r) {
  nlohmann::json key = r.toolchain_key;
  key["cmake_dir"] = r.paths.cmake.string();
  return key;
}

// Why build/cmake cannot be reused, or "" when it can: configured for another
// torch/CUDA, or in another folder (a project copied or moved with build/).
std::string StaleReason(const FileSystem& fs, const BuildRequest& r) {
  if (!fs.Exists(r.paths.cmake_key)) return "";
  auto text = fs.Read(r.paths.cmake_key);
  nlohmann::json old = text ? ParseUntrustedJson(*text) : nlohmann::json();
  if (old.is_object() && old.contains("cmake_dir") && old["cmake_dir"] != r.paths.cmake.string()) {
    const std::string dir = old["cmake_dir"].is_string() ? old["cmake_dir"].get<std::string>() : "";
    return "build/cmake was configured in another folder (" + dir +
           "; the project was copied or moved)";
  }
  if (old.is_object()) old.erase("cmake_dir");
  if (old == r.toolchain_key) return "";
  return "build/cmake was configured for another torch/CUDA";
}

Error FailureFromOutput(const FileSystem& fs, const BuildRequest& r, const std::string& output,
                        const std::string& step, const std::string& log) {
  return BuildStepFailure(fs, output, step, r.paths.project, log,
                          "if the generated project is stale, delete build/cmake and retry");
}

}  // namespace

Error BuildStepFailure(const FileSystem& fs, const std::string& output, const std::string& step,
                       const fs::path& project_dir, const std::string& log,
                       const std::string& stale_hint) {
  if (auto diag = FirstCompilerError(output)) return BuildError(*diag, fs, project_dir, log);
  // No compiler diagnostic: a CMake or Ninja problem. Show its last lines.
  std::string tail = output.size() > 2000 ? output.substr(output.size() - 2000) : output;
  Error e =
      MakeError(ExitCode::kBuildError, step + " failed",
                "see the full output in " + log + (stale_hint.empty() ? "" : "; " + stale_hint));
  e.detail = tail;
  return e;
}

Error CMakeNotFound() {
  return MakeError(ExitCode::kEnvironment, "cmake not found on PATH",
                   "install CMake >= 3.22 and Ninja: apt-get install cmake ninja-build");
}

void CountBuildSteps(const std::string& ninja_output, int* compiled, bool* linked) {
  *compiled = 0;
  *linked = false;
  std::istringstream lines(ninja_output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("] Building ") != std::string::npos) ++*compiled;
    if (line.find("] Linking ") != std::string::npos) *linked = true;
  }
}

Expected<BuildOutcome> RunBuild(FileSystem& fs, ProcessRunner& runner, const BuildRequest& r) {
  BuildOutcome outcome;
  const fs::path rel_log = r.paths.build_log.lexically_relative(r.paths.project);
  outcome.log = rel_log.empty() ? r.paths.build_log.string() : rel_log.string();

  outcome.wipe_reason = StaleReason(fs, r);
  if (!outcome.wipe_reason.empty()) {
    if (Status s = fs.Remove(r.paths.cmake); !s) return s.error();
    Say(r, outcome.wipe_reason + ": wiped it");
  }

  bool lists_changed = false;
  if (Status s =
          WriteIfChanged(fs, r.paths.cmake / "CMakeLists.txt", r.cmake_lists, &lists_changed);
      !s)
    return s.error();
  if (Status s = WriteIfChanged(fs, r.paths.generated_include / "registration.h", r.registration_h);
      !s)
    return s.error();
  if (Status s = fs.Write(r.paths.build_log, ""); !s) return s.error();  // one log per build

  RunOptions options;
  options.log = r.paths.build_log;
  options.echo = r.verbose;
  if (lists_changed || !fs.Exists(r.paths.cmake / "build.ninja")) {
    Say(r, "configure (cmake)");
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult c =
        runner.Run({"cmake", "-S", r.paths.cmake.string(), "-B", r.paths.cmake.string(), "-G",
                    "Ninja", "-DCMAKE_CUDA_COMPILER=" + r.nvcc.string()},
                   options);
    outcome.configure_seconds = SecondsSince(start);
    if (c.log_error) return *c.log_error;
    if (c.not_found) return CMakeNotFound();
    if (c.exit_code != 0) return FailureFromOutput(fs, r, c.output, "cmake configure", outcome.log);
    outcome.configured = true;
    Say(r, "configure done in " + Seconds(outcome.configure_seconds));
    // Stored after a successful configure so a failed one is retried.
    if (Status s = fs.Write(r.paths.cmake_key, JsonText(CmakeKey(r)) + "\n"); !s) return s.error();
  }

  std::vector<std::string> argv = {"cmake", "--build", r.paths.cmake.string(), "--target",
                                   r.target};
  if (r.jobs > 0) {
    argv.push_back("-j");
    argv.push_back(std::to_string(r.jobs));
  }
  if (r.verbose) argv.push_back("-v");
  Say(r, "build (ninja)");
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult b = runner.Run(argv, options);
  outcome.build_seconds = SecondsSince(start);
  CountBuildSteps(b.output, &outcome.compiled, &outcome.linked);
  if (b.log_error) return *b.log_error;
  if (b.not_found) return CMakeNotFound();
  if (b.exit_code != 0) return FailureFromOutput(fs, r, b.output, "cmake --build", outcome.log);
  Say(r, CompileSummary(outcome));
  return outcome;
}

std::string CompileSummary(const BuildOutcome& outcome) {
  return "compile " + std::to_string(outcome.compiled) + " file" +
         (outcome.compiled == 1 ? "" : "s") + (outcome.linked ? ", link" : ", nothing to link") +
         ": " + Seconds(outcome.build_seconds);
}

}  // namespace kb
