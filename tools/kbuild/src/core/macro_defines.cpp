#include "core/macro_defines.h"

#include <regex>
#include <set>

#include "core/message_text.h"

namespace kb {

namespace {

Error BadDefine(const std::string& arg, const std::string& why) {
  return MakeError(ExitCode::kUsage, "--define '" + CutForMessage(arg) + "': " + why,
                   "write --define NAME=VALUE, NAME a C identifier and VALUE an integer or an "
                   "identifier, e.g. --define BLOCK_THREADS=256");
}

}  // namespace

Expected<std::vector<MacroDefine>> ParseMacroDefines(const std::vector<std::string>& args) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  static const std::regex kValue("-?[A-Za-z0-9_.]+");
  std::vector<MacroDefine> defines;
  std::set<std::string> seen;
  for (const std::string& arg : args) {
    const std::size_t eq = arg.find('=');
    if (eq == std::string::npos) return BadDefine(arg, "no '=' between the name and the value");
    std::string name = arg.substr(0, eq), value = arg.substr(eq + 1);
    if (name.size() > kMaxMacroDefineChars || !std::regex_match(name, kName)) {
      return BadDefine(arg, "the name is not a C identifier of at most 64 characters");
    }
    if (name.rfind("__", 0) == 0) return BadDefine(arg, "names starting with '__' are reserved");
    if (value.size() > kMaxMacroDefineChars || !std::regex_match(value, kValue)) {
      return BadDefine(arg, "the value is not an integer or identifier of at most 64 characters");
    }
    if (!seen.insert(name).second) return BadDefine(arg, "'" + name + "' is defined twice");
    defines.emplace_back(std::move(name), std::move(value));
  }
  return defines;
}

std::vector<std::string> DefineArgs(const std::vector<MacroDefine>& defines) {
  std::vector<std::string> args;
  for (const auto& [name, value] : defines) args.push_back(name + "=" + value);
  return args;
}

std::string DefineFlagsText(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& arg : args) text += (text.empty() ? "--define " : " --define ") + arg;
  return text;
}

}  // namespace kb
