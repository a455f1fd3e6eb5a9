#include "core/compiler_flag_policy.h"

#include <cctype>

namespace kb {
namespace {

constexpr std::string_view kRunsProgram = "runs a program of the repository's choosing";
constexpr std::string_view kReadsOptions = "reads more options from a file";
constexpr std::string_view kPassesOn = "hands options on to the linker, assembler or preprocessor";
constexpr std::string_view kWritesFile = "writes a file at a path of its choosing";
constexpr std::string_view kCompilesFile = "compiles a file no source includes";

struct RefusedOption {
  std::string_view prefix;  // the option, and any option or value that starts with it
  std::string_view why;
};

// nvcc's spellings and the host compiler's (g++) that cuda-flags and cxx-flags
// may carry. A prefix covers the attached value (-B../x, -ccbin=gcc, -MFdeps).
constexpr RefusedOption kRefused[] = {
    {"-ccbin", kRunsProgram},
    {"--compiler-bindir", kRunsProgram},
    {"-arbin", kRunsProgram},
    {"--archiver-binary", kRunsProgram},
    {"-B", kRunsProgram},
    {"--prefix", kRunsProgram},  // g++'s -B
    {"-fplugin", kRunsProgram},
    {"-specs", kRunsProgram},
    {"--specs", kRunsProgram},
    {"-wrapper", kRunsProgram},
    {"--wrapper", kRunsProgram},
    {"-fuse-ld", kRunsProgram},
    {"-run", kRunsProgram},
    {"--run", kRunsProgram},
    {"-optf", kReadsOptions},
    {"--options-file", kReadsOptions},
    {"@", kReadsOptions},
    {"-Xlinker", kPassesOn},
    {"--linker-options", kPassesOn},
    {"-Xnvlink", kPassesOn},
    {"--nvlink-options", kPassesOn},
    {"-Xarchive", kPassesOn},
    {"--archive-options", kPassesOn},
    {"-Xassembler", kPassesOn},
    {"-Xpreprocessor", kPassesOn},
    {"-Wl,", kPassesOn},
    {"-Wa,", kPassesOn},
    {"-Wp,", kPassesOn},
    {"--for-assembler", kPassesOn},  // g++'s -Wa
    {"--for-linker", kPassesOn},     // g++'s -Xlinker
    {"--output", kWritesFile},       // nvcc's --output-file and --output-directory, g++'s -o
    {"-odir", kWritesFile},
    {"-MF", kWritesFile},
    {"--dependency-output", kWritesFile},
    {"-keep-dir", kWritesFile},
    {"--keep-dir", kWritesFile},
    {"-time", kWritesFile},
    {"--time", kWritesFile},
    {"-fdevice-time-trace", kWritesFile},
    {"--fdevice-time-trace", kWritesFile},
    {"-ftime-trace", kWritesFile},
    {"-fdump-", kWritesFile},
    {"-fprofile-generate", kWritesFile},
    {"-fprofile-dir", kWritesFile},
    {"-aux-info", kWritesFile},
    {"-dumpdir", kWritesFile},
    {"-dumpbase", kWritesFile},
    {"--dumpdir", kWritesFile},
    {"--dumpbase", kWritesFile},
    {"-include", kCompilesFile},
    {"--include=", kCompilesFile},  // g++'s -include (not --include-path, nvcc's -I)
    {"--pre-include", kCompilesFile},
    {"-imacros", kCompilesFile},
    {"--imacros", kCompilesFile},
};

// Options whose value is a comma-separated list of options for the host
// compiler or ptxas, each checked as a flag of its own.
constexpr std::string_view kPayloadOptions[] = {
    "-Xcompiler=", "--compiler-options=", "-Xptxas=", "--ptxas-options="};

std::optional<std::string> RefusedOption(std::string_view option) {
  // -o FILE and -oFILE write the output elsewhere; -opt-info and the like
  // (a lowercase letter after -o) are other options.
  if (option == "-o" || (option.size() > 2 && option.substr(0, 2) == "-o" &&
                         !std::islower(static_cast<unsigned char>(option[2])))) {
    return "'-o' " + std::string(kWritesFile);
  }
  if (option == "--include") return "'--include' " + std::string(kCompilesFile);
  for (const auto& refused : kRefused) {
    if (option.substr(0, refused.prefix.size()) == refused.prefix) {
      return "'" + std::string(refused.prefix) + "' " + std::string(refused.why);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> RefusedCompilerFlag(std::string_view flag) {
  if (auto why = RefusedOption(flag)) return why;
  std::string_view payload = flag;
  for (const auto option : kPayloadOptions) {
    if (flag.substr(0, option.size()) == option) payload = flag.substr(option.size());
  }
  // Also a flag after a bare -Xcompiler: nvcc splits its value at commas.
  while (!payload.empty()) {
    const size_t comma = payload.find(',');
    if (auto why = RefusedOption(payload.substr(0, comma))) return why;
    if (comma == std::string_view::npos) break;
    payload.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

}  // namespace kb
