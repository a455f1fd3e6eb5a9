// `kbuild skill check`: proves the skill pack says nothing broken. SKILL.md's
// frontmatter follows the rules agents enforce; every relative link resolves
// inside the pack as installed; every C++/CUDA block compiles for sm_90a (or
// is marked `<!-- fragment -->`); every `kbuild ...` line parses against the
// real command line interface.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/frontmatter.h"
#include "core/fs.h"
#include "core/markdown_blocks.h"
#include "core/process.h"
#include "core/toml_location.h"

namespace kb {

// Claude Code's limits on a skill's frontmatter.
inline constexpr size_t kSkillNameMaxLength = 64;
inline constexpr size_t kSkillDescriptionMaxLength = 1024;
inline constexpr int kSkillBodyWordBudget = 1500;

// Checks `kbuild <args>` against the real CLI: an error message, or nothing
// when it parses.
using CommandLineValidator = std::function<std::optional<std::string>(
    const std::vector<std::string>& args)>;

// Frontmatter rules: `name` (lowercase letters, digits, hyphens, <= 64, the
// skill's folder name) and `description` (non-empty, <= 1024, no '<' '>').
std::vector<Error> CheckSkillFrontmatter(const Frontmatter& fm,
                                         const SourceText& source,
                                         const std::string& folder_name);

// Relative links of `doc` (a file at `file` inside the pack) that name no file
// or folder of `pack_files` (pack-relative paths), or leave the pack.
std::vector<Error> CheckLinks(
    const MarkdownDocument& doc, const std::filesystem::path& file,
    const std::vector<std::filesystem::path>& pack_files,
    const SourceText& source);

// `kbuild ...` command lines in shell blocks (bash, sh, shell, console) and in
// inline code, split into arguments (the words after `kbuild`).
struct KbuildCommandLine {
  std::vector<std::string> args;
  std::string text;  // as shown, for messages
  int line = 0;
  int column = 0;
};
std::vector<KbuildCommandLine> FindKbuildCommandLines(
    const MarkdownDocument& doc);

// How to compile code blocks. Empty paths are discovered by the command.
struct CodeCompileSetup {
  std::filesystem::path nvcc;          // nvcc for ```cuda blocks
  std::filesystem::path cxx;           // g++ for ```cpp blocks
  std::filesystem::path cuda_include;  // <CUDA>/include
  std::optional<std::filesystem::path>
      torch_dir;                     // holds include/; nothing = not found
  std::string torch_missing_reason;  // why torch_dir is empty, for the finding
  std::filesystem::path work_dir;    // scratch folder for sources and objects
  std::filesystem::path
      cache_dir;  // remembers blocks that compiled; empty = no cache
  // Set by CheckSkillPack: a folder under work_dir holding common/ with the
  // kernel library's headers (templates/library), so a block includes
  // "common/reduce.cuh" as a project does; and a digest of those headers,
  // so a changed library compiles every block again.
  std::filesystem::path library_include;
  std::string library_digest;
};

// Copies the kernel library (home/templates/library/*.h, *.cuh) into
// setup.work_dir/include/common/ and sets library_include and
// library_digest. No library folder: nothing is set.
Status StageKernelLibrary(FileSystem& fs, const std::filesystem::path& home,
                          CodeCompileSetup& setup);

// True for ```cpp / ```c++ / ```cuda ... blocks, which must compile.
bool IsCompiledLanguage(const std::string& language);
// True when the code includes torch, ATen or c10 headers.
bool NeedsTorch(const std::string& code);

// Compiles one block; nothing when it compiled, else the finding (at the
// markdown line of the first compiler error when it can be placed).
std::optional<Error> CompileCodeBlock(FileSystem& fs, ProcessRunner& runner,
                                      const CodeCompileSetup& setup,
                                      const CodeBlock& block,
                                      const SourceText& source);

struct SkillCheckOptions {
  std::filesystem::path home;  // kbuild's data folder
  bool compile = true;         // false: count code blocks, compile none
  CodeCompileSetup compile_setup;
};

struct SkillCheckResult {
  std::vector<std::string> files;  // markdown files checked, relative to home
  int links = 0;
  int code_blocks = 0;  // C++/CUDA blocks
  int compiled = 0;
  int fragments = 0;
  int command_lines = 0;
  int skill_words = 0;          // SKILL.md body
  std::vector<Error> problems;  // each one fails the check (exit 1)
  std::vector<std::string> warnings;
};

// Error only when the pack cannot be found (exit 4); findings go in problems.
Expected<SkillCheckResult> CheckSkillPack(FileSystem& fs, ProcessRunner& runner,
                                          const SkillCheckOptions& options,
                                          const CommandLineValidator& validate);

}  // namespace kb
