#include "core/compiler_errors.h"

#include <charconv>
#include <regex>
#include <sstream>
#include <vector>

#include "core/kernel_names.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

// A diagnostic's first line is short; std::regex matches by recursion, so a line of 100,000
// characters (a long source line echoed back) would overflow the stack. Longer lines are
// passed over.
constexpr size_t kMaxDiagnosticLine = 4096;

// A line or column number as printed; 0 when it does not fit an int (#line 4294967290).
int NumberIn(const std::string& digits) {
  int value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && end == digits.data() + digits.size() ? value : 0;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// nvcc echoes the line indented by two spaces and puts a caret line below it.
void TakeNvccEcho(const std::vector<std::string>& lines, size_t i, CompilerDiagnostic& d) {
  if (i + 2 >= lines.size()) return;
  const std::string& caret = lines[i + 2];
  const size_t pos = caret.find('^');
  if (pos == std::string::npos || caret.find_first_not_of(' ') != pos) return;
  const std::string& echoed = lines[i + 1];
  d.source_line = echoed.rfind("  ", 0) == 0 ? echoed.substr(2) : echoed;
  if (pos >= 2) d.column = static_cast<int>(pos - 2) + 1;
}

// gcc echoes "    2 |   return x;" then "      |          ^~~~".
void TakeGccEcho(const std::vector<std::string>& lines, size_t i, CompilerDiagnostic& d) {
  if (i + 1 >= lines.size()) return;
  const std::string& echoed = lines[i + 1];
  const size_t bar = echoed.find(" | ");
  if (bar == std::string::npos || echoed.find_first_not_of(" 0123456789") != bar + 1) return;
  d.source_line = echoed.substr(bar + 3);
}

// GNU ld: "x.cpp.o: in function `f':" then "[file:line: | x.cpp:(.text+0x5): ]undefined
// reference to `sym'"; lld: "error: undefined symbol: sym".
std::optional<CompilerDiagnostic> UndefinedSymbol(const std::vector<std::string>& lines, size_t i) {
  static const std::regex gnu(R"(^(?:([^:]+):(\d+): )?.*undefined reference to [`'](.*)'$)");
  static const std::regex lld(R"(error: undefined symbol: (.*)$)");
  static const std::regex in_function(R"(^(?:.*?: )?(\S+\.o): in function [`'](.*)':$)");
  std::smatch m;
  CompilerDiagnostic d;
  d.kind = CompilerDiagnostic::Kind::kLink;
  std::string object, function;
  if (std::regex_search(lines[i], m, gnu)) {
    d.message = "undefined symbol '" + Demangle(m[3]) + "'";
    if (m[1].matched) {  // "file:line:" when the object has debug info
      d.file = m[1];
      d.line = NumberIn(m[2]);
    }
    if (i > 0 && lines[i - 1].size() <= kMaxDiagnosticLine &&
        std::regex_match(lines[i - 1], m, in_function)) {
      object = m[1];
      function = Demangle(m[2]);
    }
  } else if (std::regex_search(lines[i], m, lld)) {
    d.message = "undefined symbol '" + Demangle(m[1]) + "'";
  } else {
    return std::nullopt;
  }
  if (!object.empty()) d.message += ", referenced by " + fs::path(object).filename().string();
  if (!function.empty()) d.message += " in " + function;
  return d;
}

}  // namespace

std::optional<CompilerDiagnostic> FirstCompilerError(const std::string& output) {
  static const std::regex gcc(R"(^(.+?):(\d+):(\d+): (?:fatal )?error: (.*)$)");
  static const std::regex nvcc(R"(^(.+?)\((\d+)\): (?:catastrophic )?error(?: #\S+)?: (.*)$)");
  static const std::regex tool(R"(^(ptxas|nvcc|nvlink) (?:fatal|error)\s*: (.*)$)");
  const std::vector<std::string> lines = SplitLines(output);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.size() > kMaxDiagnosticLine) continue;
    std::smatch m;
    CompilerDiagnostic d;
    if (std::regex_match(line, m, gcc)) {
      d.file = m[1];
      d.line = NumberIn(m[2]);
      d.column = NumberIn(m[3]);
      d.message = m[4];
      TakeGccEcho(lines, i, d);
      return d;
    }
    if (std::regex_match(line, m, nvcc)) {
      d.file = m[1];
      d.line = NumberIn(m[2]);
      d.message = m[3];
      TakeNvccEcho(lines, i, d);
      return d;
    }
    if (auto link = UndefinedSymbol(lines, i)) return link;
    if (std::regex_match(line, m, tool)) {
      d.kind = CompilerDiagnostic::Kind::kTool;
      d.message = m[1].str() + ": " + m[2].str();
      return d;
    }
  }
  return std::nullopt;
}

std::string SourceExcerpt(const CompilerDiagnostic& diag, const FileSystem& fs,
                          const fs::path& project_dir) {
  if (diag.line <= 0) return {};
  std::string source = diag.source_line;
  // Only a project file is read back (a `#line` can name any file on the machine), and
  // never through a link; elsewhere the line the compiler echoed is all there is.
  const fs::path file(diag.file);
  const fs::path rel = file.lexically_normal().lexically_relative(project_dir.lexically_normal());
  const bool inside = file.is_absolute() && !rel.empty() && OutsideFolderReason(rel).empty();
  auto kind = inside ? KindBelow(fs, project_dir, rel) : Expected<FileKind>(FileKind::kMissing);
  if (kind && *kind == FileKind::kRegular) {
    if (auto text = fs.ReadAtMost(file, kMaxSourceExcerptFileBytes)) {
      const auto lines = SplitLines(*text);
      if (diag.line <= static_cast<int>(lines.size())) source = lines[diag.line - 1];
    }
  }
  if (source.empty()) return {};
  char number[16];
  std::snprintf(number, sizeof(number), "%5d", diag.line);
  std::string out = std::string(number) + " | " + source + "\n";
  if (diag.column > 0) {
    // Keep tabs so the caret lines up under tab-indented code.
    std::string pad;
    for (int c = 0; c < diag.column - 1 && c < static_cast<int>(source.size()); ++c) {
      pad += source[c] == '\t' ? '\t' : ' ';
    }
    out += "      | " + pad + "^\n";
  }
  return out;
}

namespace {

std::string HintFor(const CompilerDiagnostic& diag, const std::string& log_path) {
  const std::string log = "full compiler output: " + log_path;
  const bool torch_header = diag.message.find("torch/") != std::string::npos ||
                            diag.message.find("ATen/") != std::string::npos;
  const bool kernel_source =
      diag.file.size() > 3 && (diag.file.ends_with(".cu") || diag.file.ends_with(".cuh"));
  if (torch_header && kernel_source) {
    return "kernel sources are compiled without torch headers (so they rebuild in seconds); move "
           "torch code into torch-ext/torch_binding.cpp and pass raw pointers to the launcher; " +
           log;
  }
  if (diag.kind == CompilerDiagnostic::Kind::kLink) {
    return "a function is declared but never defined in what is linked: check that the .cu "
           "defining "
           "it is listed in a [kernel.*] src in build.toml and that the signatures match; " +
           log;
  }
  return "fix this first error and run kbuild build again (later errors often follow from it); " +
         log;
}

}  // namespace

Error BuildError(const CompilerDiagnostic& diag, const FileSystem& fs, const fs::path& project_dir,
                 const std::string& log_path) {
  Error e = MakeError(ExitCode::kBuildError, diag.message, HintFor(diag, log_path));
  if (!diag.file.empty()) {
    const fs::path file(diag.file);
    const fs::path rel = file.lexically_relative(project_dir);
    const bool inside = file.is_absolute() && !rel.empty() && *rel.begin() != "..";
    e.path = inside ? rel.string() : diag.file;
  }
  e.line = diag.line;
  e.column = diag.column;
  e.detail = SourceExcerpt(diag, fs, project_dir);
  return e;
}

}  // namespace kb
