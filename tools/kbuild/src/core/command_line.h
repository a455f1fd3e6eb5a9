// What main() needs to know from the raw command line even when CLI11 rejects
// it: whether --json was asked for (then every answer is one JSON document),
// which command was meant, and which word is not a command.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kb {

// True when "--json" appears before a "--".
bool WantsJson(const std::vector<std::string>& args);

// The command the words name, as in the JSON document's "command": "build",
// "skill install", ...; "kbuild" when no known command word is there.
// `names` are the top-level command names; `args` exclude argv[0].
std::string CommandNameOf(const std::vector<std::string>& args,
                          const std::vector<std::string>& names);

// The first word that is neither an option, an option's value (-C DIR) nor a
// known command.
std::optional<std::string> FirstUnknownCommand(const std::vector<std::string>& args,
                                               const std::vector<std::string>& names);

}  // namespace kb
