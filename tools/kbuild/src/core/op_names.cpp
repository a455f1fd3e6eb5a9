#include "core/op_names.h"

#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "core/suggest.h"
#include "core/toml_location.h"

namespace kb {

namespace {

namespace fs = std::filesystem;

// ops.def("name(...)") and ops.def("name.overload(...)"): the qualified name.
const std::regex kDefinition(R"re(\.def\(\s*"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?)\s*\()re");
// Any ops.def( call: when some are not a string literal the set of ops is
// only known at run time, and nothing is reported.
const std::regex kAnyDefinition(R"re(\.def\()re");
// ProjectOp("name") in the harness code.
const std::regex kProjectOp(R"re(ProjectOp\(\s*"([^"]*)"\s*\))re");

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
    size_t literal = 0;
    for (std::sregex_iterator it(text->begin(), text->end(), kDefinition), end; it != end; ++it) {
      ops.insert((*it)[1].str());
      ++literal;
    }
    const auto all = std::distance(std::sregex_iterator(text->begin(), text->end(), kAnyDefinition),
                                   std::sregex_iterator());
    if (static_cast<size_t>(all) != literal) return {};
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
        for (std::sregex_iterator it(line.begin(), line.end(), kProjectOp), end; it != end; ++it) {
          const std::string name = (*it)[1].str();
          if (defined.count(name)) continue;
          const auto near = NearestName(name, known);
          warnings.push_back(
              source.ErrorAt(ExitCode::kCheckFailed, {n, static_cast<int>(it->position(1)) + 1},
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
