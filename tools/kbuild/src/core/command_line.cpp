#include "core/command_line.h"

#include <algorithm>

namespace kb {

namespace {

bool TakesValue(const std::string& arg) { return arg == "-C" || arg == "--project"; }

bool Contains(const std::vector<std::string>& names, const std::string& word) {
  return std::find(names.begin(), names.end(), word) != names.end();
}

}  // namespace

bool WantsJson(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--") return false;
    if (arg == "--json") return true;
  }
  return false;
}

std::string CommandNameOf(const std::vector<std::string>& args,
                          const std::vector<std::string>& names) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (TakesValue(args[i])) {
      ++i;
      continue;
    }
    if (args[i].starts_with("-") || !Contains(names, args[i])) continue;
    // A command with subcommands (skill): its next plain word names the action.
    if (args[i] == "skill" && i + 1 < args.size() && !args[i + 1].starts_with("-")) {
      return args[i] + " " + args[i + 1];
    }
    return args[i];
  }
  return "kbuild";
}

std::optional<std::string> FirstUnknownCommand(const std::vector<std::string>& args,
                                               const std::vector<std::string>& names) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (TakesValue(args[i])) {
      ++i;
      continue;
    }
    if (args[i].starts_with("-")) continue;
    if (Contains(names, args[i])) return std::nullopt;
    return args[i];
  }
  return std::nullopt;
}

}  // namespace kb
