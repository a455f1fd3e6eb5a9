// kbuild entry point: parse the command line and dispatch. No logic here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands/command.h"
#include "core/build_lock.h"
#include "core/command_line.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/report.h"
#include "core/stop_signal.h"
#include "core/suggest.h"

namespace {

constexpr const char* kFooter = R"(Exit codes:
  0  ok
  1  a test or check failed
  2  bad usage or bad config
  3  build (compile/link) error
  4  environment problem (no GPU, no nvcc, no torch)
  5  internal error (a bug in kbuild: please report it)
  6  another kbuild is building, testing or benchmarking this project (build/.kbuild.lock)
  130, 143  stopped by Ctrl-C (SIGINT) or SIGTERM; the programs kbuild started are stopped too
With --json, stdout holds exactly one JSON document for every outcome, including these.

Environment:
  KBUILD_TORCH_DIR  torch install (the folder holding include/ and lib/) or its CMake config dir
  Torch_DIR         torch's CMake config dir (share/cmake/Torch)
  CUDA_HOME         CUDA Toolkit root (default: nvcc on PATH, then /usr/local/cuda)
  KBUILD_HOME       where templates/ and build.toml.in live (default: share/kbuild beside an installed kbuild, else the source tree it was built from)
  KBUILD_PYTHON     the python3 used to discover torch (default: python3 on PATH)
  KBUILD_CACHE_DIR  per-machine cache: measured GPU bandwidth, the shared harness library (default: $XDG_CACHE_HOME/kbuild, else ~/.cache/kbuild; with neither, this user's own <temp>/kbuild-cache-<uid>))";

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const auto& c : kb::kCommands) names.emplace_back(c.name);
  return names;
}

bool HoldsBuildLock(const std::string& command) {
  for (const auto& c : kb::kCommands) {
    if (command == c.name) return c.holds_build_lock;
  }
  return false;
}

// build, test and bench of a project (a folder with build.toml) hold its build lock until
// they return; elsewhere the command reports what is missing itself.
int RunLocked(const kb::GlobalOptions& global, const std::string& command, bool json,
              const std::function<int()>& run) {
  if (!HoldsBuildLock(command) || !std::filesystem::exists(global.project_dir / "build.toml")) {
    return run();
  }
  auto lock =
      kb::BuildLock::Acquire(kb::MakeBuildPaths(global.project_dir).build, "kbuild " + command);
  if (!lock) return kb::Report(command, json).Fail(lock.error());
  return run();
}

}  // namespace

int main(int argc, char** argv) {
  kb::InstallStopHandlers();
  CLI::App app{
      "kbuild: scaffold, build, test and benchmark CUDA kernels for PyTorch.\n"
      "Typical flow: kbuild doctor; kbuild init NAME --template rmsnorm; cd NAME; "
      "kbuild check; kbuild build; kbuild test; kbuild bench; kbuild package",
      "kbuild"};
  app.footer(kFooter);
  kb::GlobalOptions global;
  kb::Invocation invocation;
  kb::ConfigureRootApp(app, global, invocation);
  const std::vector<std::string> args(argv + 1, argv + argc);
  const bool json = kb::WantsJson(args);
  const std::string command = kb::CommandNameOf(args, CommandNames());

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // An unknown command word is most likely a typo: name the nearest command.
    const auto unknown = kb::FirstUnknownCommand(args, CommandNames());
    if (json) {
      kb::Error error = kb::MakeError(
          kb::ExitCode::kUsage, e.what(),
          "run 'kbuild " + (command == "kbuild" ? "" : command + " ") + "--help' for usage");
      if (unknown) {
        error.message = "unknown command '" + *unknown + "'";
        error.hint = kb::SuggestionHint(*unknown, CommandNames());
      }
      return kb::Report(command, true).Fail(error);
    }
    std::cerr << "kbuild: error: " << e.what() << "\n";
    if (unknown) {
      std::cerr << "kbuild: error: unknown command '" << *unknown << "'\n";
      std::cerr << "hint: " << kb::SuggestionHint(*unknown, CommandNames()) << "\n";
    }
    std::cerr << "Run 'kbuild --help' for usage.\n";
    return static_cast<int>(kb::ExitCode::kUsage);
  }
  if (!invocation.run) return static_cast<int>(kb::ExitCode::kInternal);
  const int code = kb::RunReportingExceptions(
      command, json, [&] { return RunLocked(global, command, json, invocation.run); });
  // Every command reports through Report, which turns a stop into 130/143; this covers one
  // that returned without reporting.
  return kb::StopSignal() != 0 ? kb::StopExitCode() : code;
}
