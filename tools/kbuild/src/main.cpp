// kbuild entry point: parse the command line and dispatch. No logic here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands/command.h"
#include "core/error.h"
#include "core/suggest.h"

namespace {

constexpr const char* kFooter = R"(Exit codes:
  0  ok
  1  a test or check failed
  2  bad usage or bad config
  3  build (compile/link) error
  4  environment problem (no GPU, no nvcc, no torch)
  5  internal error (a bug in kbuild: please report it)

Environment:
  KBUILD_TORCH_DIR  torch install (the folder holding include/ and lib/) or its CMake config dir
  Torch_DIR         torch's CMake config dir (share/cmake/Torch)
  CUDA_HOME         CUDA Toolkit root (default: nvcc on PATH, then /usr/local/cuda)
  KBUILD_HOME       where templates/ and build.toml.in live (default: the source tree kbuild was built from)
  KBUILD_PYTHON     the python3 used to discover torch (default: python3 on PATH)
  KBUILD_CACHE_DIR  per-machine cache, e.g. measured GPU bandwidth (default: ~/.cache/kbuild))";

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const auto& c : kb::kCommands) names.emplace_back(c.name);
  return names;
}

// The first word that is neither an option, an option's value (-C DIR) nor a known command.
std::optional<std::string> FirstUnknownCommand(int argc, char** argv) {
  const auto names = CommandNames();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-C" || arg == "--project") {
      ++i;
      continue;
    }
    if (arg.starts_with("-")) continue;
    if (std::find(names.begin(), names.end(), arg) != names.end()) return std::nullopt;
    return arg;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kbuild: scaffold, build, test and benchmark CUDA kernels for PyTorch.\n"
               "Typical flow: kbuild doctor; kbuild init NAME --template rmsnorm; cd NAME; "
               "kbuild check; kbuild build; kbuild test; kbuild bench",
               "kbuild"};
  app.footer(kFooter);
  kb::GlobalOptions global;
  kb::Invocation invocation;
  kb::ConfigureRootApp(app, global, invocation);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "kbuild: error: " << e.what() << "\n";
    // An unknown command word is most likely a typo: name the nearest command.
    if (auto unknown = FirstUnknownCommand(argc, argv)) {
      std::cerr << "kbuild: error: unknown command '" << *unknown << "'\n";
      std::cerr << "hint: " << kb::SuggestionHint(*unknown, CommandNames()) << "\n";
    }
    std::cerr << "Run 'kbuild --help' for usage.\n";
    return static_cast<int>(kb::ExitCode::kUsage);
  }
  if (!invocation.run) return static_cast<int>(kb::ExitCode::kInternal);
  try {
    return invocation.run();
  } catch (const std::exception& e) {
    std::cerr << "kbuild: internal error: " << e.what() << "\n"
              << "hint: this is a bug in kbuild; please report it with the command line.\n";
    return static_cast<int>(kb::ExitCode::kInternal);
  }
}
