// The command table: one file per subcommand under commands/, each exposing
// one Add<Name>Command function that declares its options and, when chosen,
// stores the action to run. main() only parses and dispatches.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace kb {

struct GlobalOptions {
  std::filesystem::path project_dir = ".";  // -C DIR
};

// Set by the chosen subcommand's callback; returns the process exit code.
struct Invocation {
  std::function<int()> run;
};

using AddCommandFn = void (*)(CLI::App& app, const GlobalOptions& global, Invocation& invocation);

struct CommandEntry {
  const char* name;
  AddCommandFn add;
  bool holds_build_lock = false;  // runs the project's Ninja tree: one at a time (build_lock.h)
};

void AddInitCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddCheckCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddBuildCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddDoctorCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddTestCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddBenchCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddSkillCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddTuneCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddProfileCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddOptimizeCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddPackageCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);
void AddWorkerCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation);

// In --help order. New commands (optimize, package) add one line here and one file in commands/.
inline constexpr CommandEntry kCommands[] = {
    {"init", AddInitCommand},
    {"check", AddCheckCommand},
    {"build", AddBuildCommand, true},
    {"test", AddTestCommand, true},
    {"bench", AddBenchCommand, true},
    {"profile", AddProfileCommand, true},
    {"tune", AddTuneCommand},          // locks nothing itself: each variant builds in its own copy
    {"optimize", AddOptimizeCommand},  // likewise: each worker builds in its own copy
    {"worker", AddWorkerCommand},      // builds in its own scratch copy
    {"package", AddPackageCommand, true},  // reads build/: never while a build writes it
    {"doctor", AddDoctorCommand},
    {"skill", AddSkillCommand},
};

// Builds the root application: global options and every command of kCommands.
// main() and `kbuild skill check` (which parses shown command lines) share it.
void ConfigureRootApp(CLI::App& app, GlobalOptions& global, Invocation& invocation);

// CLI::PositiveNumber with a readable message: CLI11's own prints the largest
// double in full ("Value 0 not in range 0.000000 to 1797693...").
inline const CLI::Validator kPositiveNumber(
    [](std::string& input) -> std::string {
      double value = 0;
      if (!CLI::detail::lexical_cast(input, value) || !(value > 0)) {
        return "Value " + input + " is not a number greater than 0";
      }
      return "";
    },
    "POSITIVE");

// Adds the --json flag every command has.
inline CLI::Option* AddJsonFlag(CLI::App& sub, bool& json) {
  return sub.add_flag("--json", json,
                      "Print one JSON document on stdout instead of human-readable text "
                      "(schema: references/kbuild-output.md)");
}

// Adds --define NAME=VALUE (repeatable), which build, test and bench share.
inline CLI::Option* AddDefineOption(CLI::App& sub, std::vector<std::string>& defines) {
  return sub.add_option("--define", defines,
                        "A macro every compile unit of the project sees (kernels, binding, tests, "
                        "benchmarks; not the harness library), -DNAME=VALUE (repeatable; NAME a C "
                        "identifier, VALUE an integer or identifier): how kbuild tune builds "
                        "one variant of a search space");
}

}  // namespace kb
