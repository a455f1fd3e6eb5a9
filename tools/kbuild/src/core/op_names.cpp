#include "core/op_names.h"

#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/suggest.h"
#include "core/toml_location.h"

namespace kb {

namespace {

namespace fs = std::filesystem;

// The texts are the project's own and may be hostile: they are scanned by hand, not with
// std::regex, whose matching recurses per character (200,000 spaces overflowed the stack).

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

size_t SkipSpace(std::string_view text, size_t at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  return at;
}

// At `at`, the literal of ops.def("name(...)") or ops.def("name.overload(...)"): the
// qualified name, or "" when the definition is not such a literal.
std::string DefinedName(std::string_view text, size_t at) {
  at = SkipSpace(text, at);
  if (at >= text.size() || text[at] != '"') return "";
  const size_t start = ++at;
  if (at >= text.size() || !(std::isalpha(static_cast<unsigned char>(text[at])) || text[at] == '_'))
    return "";
  while (at < text.size() && IsWordChar(text[at])) ++at;
  if (at + 1 < text.size() && text[at] == '.' && IsWordChar(text[at + 1])) {
    ++at;
    while (at < text.size() && IsWordChar(text[at])) ++at;
  }
  const size_t end = at;
  at = SkipSpace(text, at);
  return at < text.size() && text[at] == '(' ? std::string(text.substr(start, end - start)) : "";
}

// ProjectOp("name") in a line of harness code: (name, its column), one per call.
std::vector<std::pair<std::string, size_t>> ProjectOpNames(std::string_view line) {
  constexpr std::string_view kCall = "ProjectOp(";
  std::vector<std::pair<std::string, size_t>> out;
  for (size_t at = line.find(kCall); at != std::string_view::npos; at = line.find(kCall, at)) {
    at = SkipSpace(line, at + kCall.size());
    if (at >= line.size() || line[at] != '"') continue;
    const size_t start = at + 1;
    const size_t close = line.find('"', start);
    if (close == std::string_view::npos) break;
    const size_t after = SkipSpace(line, close + 1);
    if (after < line.size() && line[after] == ')') {
      out.emplace_back(std::string(line.substr(start, close - start)), start);
    }
    at = close + 1;
  }
  return out;
}

bool IsSource(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".cpp" || ext == ".cc" || ext == ".h" || ext == ".hpp";
}

// The ops the binding defines, or nothing when some definition is not a
// string literal (names built at run time).
std::set<std::string> DefinedOps(const FileSystem& fs, const ProjectConfig& config) {
  std::set<std::string> ops;
  if (!config.torch) return ops;
  for (const auto& src : config.torch->src) {
    auto text = fs.Read(config.root / src);
    if (!text) continue;
    constexpr std::string_view kDef = ".def(";
    for (size_t at = text->find(kDef); at != std::string::npos; at = text->find(kDef, at)) {
      at += kDef.size();
      const std::string name = DefinedName(*text, at);
      if (name.empty()) return {};  // a name built at run time: the set of ops is not known
      ops.insert(name);
    }
  }
  return ops;
}

std::string Listed(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<Error> CheckHarnessOpNames(const FileSystem& fs, const ProjectConfig& config) {
  std::vector<Error> warnings;
  const std::set<std::string> defined = DefinedOps(fs, config);
  if (defined.empty()) return warnings;
  const std::vector<std::string> known(defined.begin(), defined.end());
  for (const char* dir : {"tests", "benchmarks"}) {
    if (!fs.IsDirectory(config.root / dir)) continue;
    for (const auto& file : fs.ListFilesRecursive(config.root / dir)) {
      if (!IsSource(file)) continue;
      const fs::path relative = fs::path(dir) / file;
      auto text = fs.Read(config.root / relative);
      if (!text) continue;
      const SourceText source((config.root / relative).lexically_normal().string(), *text);
      for (int n = 1; n <= source.line_count(); ++n) {
        const std::string line(source.Line(n));
        for (const auto& [name, column] : ProjectOpNames(line)) {
          if (defined.count(name)) continue;
          const auto near = NearestName(name, known);
          warnings.push_back(
              source.ErrorAt(ExitCode::kCheckFailed, {n, static_cast<int>(column) + 1},
                             "ProjectOp(\"" + name + "\") names an op the binding does not define",
                             (near ? "did you mean '" + *near + "'? " : std::string()) +
                                 "ops defined in [torch] src: " + Listed(defined) +
                                 " (this test would fail on the GPU with the op not found)"));
        }
      }
    }
  }
  return warnings;
}

}  // namespace kb
