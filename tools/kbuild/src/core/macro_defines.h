// `--define NAME=VALUE` on kbuild build, test and bench: a macro every
// compile unit of the project sees (-DNAME=VALUE), so one source tree builds
// the variants `kbuild tune` searches (tile sizes, threads per block, ...).
// Names are C identifiers; values are integers or identifiers (with '.'),
// at most 64 characters: nothing a compiler command line or CMake could read
// as more than one token.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace kb {

using MacroDefine = std::pair<std::string, std::string>;  // (NAME, VALUE)

// The longest NAME, and the longest VALUE, a define may have.
inline constexpr std::size_t kMaxMacroDefineChars = 64;

// Each "NAME=VALUE" checked; a name given twice is an error (the last would
// silently win otherwise). Exit 2 with the offending text.
Expected<std::vector<MacroDefine>> ParseMacroDefines(const std::vector<std::string>& args);

// Each define as the "NAME=VALUE" --define takes (ParseMacroDefines's inverse), in order.
std::vector<std::string> DefineArgs(const std::vector<MacroDefine>& defines);

// "--define A=1 --define B=2" for those NAME=VALUE args, as a command line passes them; "" for
// none.
std::string DefineFlagsText(const std::vector<std::string>& args);

}  // namespace kb
