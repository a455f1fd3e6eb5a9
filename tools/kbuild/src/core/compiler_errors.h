// Finds the FIRST error in compiler/linker output (nvcc, gcc, ld, ptxas) so a
// failed build reports one actionable location instead of a wall of text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

struct CompilerDiagnostic {
  std::string file;         // as the compiler printed it; empty for linker/tool errors
  int line = 0;             // 1-based; 0 = unknown
  int column = 0;           // 1-based; 0 = unknown
  std::string message;      // without the "error:" prefix
  std::string source_line;  // the offending line as the compiler echoed it, if it did
  enum class Kind { kCompile, kLink, kTool } kind = Kind::kCompile;
};

// Recognizes `file(line): error: msg` (nvcc), `file:line:col: error: msg`
// (gcc/clang), `undefined reference to ...` (ld), `ptxas error : msg` and
// `nvcc fatal : msg`. Nothing when the output holds no error.
std::optional<CompilerDiagnostic> FirstCompilerError(const std::string& output);

// "    3 |   x = y;\n      |       ^\n": the source line (read through `fs`
// when the file is a regular file inside `project_dir`, reached through no
// link, of at most kMaxSourceExcerptFileBytes; else as the compiler echoed
// it) and a caret under the column.
inline constexpr std::uintmax_t kMaxSourceExcerptFileBytes = 16u << 20;
std::string SourceExcerpt(const CompilerDiagnostic& diag, const FileSystem& fs,
                          const std::filesystem::path& project_dir);

// An exit-3 Error: location relative to `project_dir` when inside it, the
// excerpt as detail, and a hint naming `log_path`.
Error BuildError(const CompilerDiagnostic& diag, const FileSystem& fs,
                 const std::filesystem::path& project_dir, const std::string& log_path);

}  // namespace kb
