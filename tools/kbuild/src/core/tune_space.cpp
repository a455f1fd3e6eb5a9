// kbuild.toml -> TuneSpace: every problem is collected with its position and
// the one nearest the top of the file is returned, so a user fixing errors
// one by one works down the file. Variant generation is in tune_variants.cpp.
#include "core/tune_space.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <regex>
#include <sstream>
#include <utility>

#include "core/macro_defines.h"
#include "core/message_text.h"
#include "core/sha256.h"
#include "core/suggest.h"
#include "core/toml_location.h"

namespace kb {

namespace {

constexpr const char* kParamsExample = "[tune.params] with BLOCK_THREADS = [128, 256, 512]";
// A bench-filter names a few cases; these bounds keep std::regex's recursion shallow.
constexpr size_t kMaxBenchFilterChars = 1000;
constexpr int kMaxBenchFilterGroups = 16;

// How deeply a regular expression's groups nest ('\(' and '[(]' are not groups).
int GroupNesting(std::string_view pattern) {
  int depth = 0;
  int deepest = 0;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') ++i;  // "[]...]": ']' is a member
    } else if (c == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')') {
      --depth;
    }
  }
  return deepest;
}

SourceLocation Where(const toml::source_region& region) {
  return {static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
}

// "string", "integer", "floating-point", ... as TOML++ names them.
std::string TypeName(const toml::node& node) {
  std::ostringstream name;
  name << node.type();
  return name.str();
}

bool IsCIdentifier(std::string_view s) {
  const auto start = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  return !s.empty() && start(s.front()) && std::all_of(s.begin(), s.end(), [&](char c) {
    return start(c) || (c >= '0' && c <= '9');
  });
}

struct KeyRule {
  std::string_view key;
  toml::node_type type;
  std::string_view expected;  // for "must be" errors
};

const std::vector<KeyRule> kTopKeys = {{"tune", toml::node_type::table, "a table"}};
const std::vector<KeyRule> kTuneKeys = {
    {"constraints", toml::node_type::array, "an array of strings"},
    {"max-spill-bytes", toml::node_type::integer, "an integer"},
    {"params", toml::node_type::table, "a table"},
    {"bench-filter", toml::node_type::string, "a string (a regular expression)"},
    {"test-filter", toml::node_type::string, "a string (a GoogleTest pattern)"},
};

class TuneSpaceParser {
 public:
  TuneSpaceParser(const std::string& text, const std::string& display_path)
      : text_(text), source_(display_path, text) {}

  Expected<TuneSpace> Run() {
    toml::table root;
    try {
      root = toml::parse(text_, source_.path());
    } catch (const toml::parse_error& e) {
      return source_.ErrorAt(ExitCode::kUsage, Where(e.source()),
                             "invalid TOML: " + std::string(e.description()),
                             "fix the TOML syntax at this spot (see https://toml.io)");
    }
    CheckKeys(root, kTopKeys, "at the top level");
    if (!errors_.empty()) return First();
    const auto* tune = root["tune"].as_table();
    if (tune == nullptr) {
      Fail({}, "no [tune] table", std::string("add ") + kParamsExample);
      return First();
    }
    CheckKeys(*tune, kTuneKeys, "in [tune]");
    TuneSpace space;
    space.max_spill_bytes = MaxSpillBytes(*tune);
    space.bench_filter = BenchFilter(*tune);
    space.test_filter = TestFilter(*tune);
    if (const auto* params = (*tune)["params"].as_table()) {
      space.params = Params(*params);
    } else if (!tune->contains("params")) {
      Fail(Where(tune->source()), "missing [tune.params]", std::string("add ") + kParamsExample);
    }
    if (!errors_.empty()) return First();
    if (const auto* constraints = (*tune)["constraints"].as_array()) {
      space.constraints = Constraints(*constraints, space.params);
    }
    if (!errors_.empty()) return First();
    return space;
  }

 private:
  void Fail(SourceLocation at, std::string message, std::string hint = {}) {
    errors_.push_back(source_.ErrorAt(ExitCode::kUsage, at, std::move(message), std::move(hint)));
  }

  Error First() {
    std::stable_sort(errors_.begin(), errors_.end(), [](const Error& a, const Error& b) {
      return std::pair(a.line, a.column) < std::pair(b.line, b.column);
    });
    return errors_.front();
  }

  void CheckKeys(const toml::table& table, const std::vector<KeyRule>& rules,
                 const std::string& where) {
    std::vector<std::string> names;
    for (const auto& rule : rules) names.emplace_back(rule.key);
    for (auto&& [key, node] : table) {
      const auto rule = std::find_if(rules.begin(), rules.end(),
                                     [&](const KeyRule& r) { return r.key == key.str(); });
      const std::string name = CutForMessage(key.str());
      if (rule == rules.end()) {
        Fail(Where(key.source()), "unknown key '" + name + "' " + where,
             SuggestionHint(key.str(), names));
      } else if (node.type() != rule->type) {
        Fail(Where(node.source()),
             "'" + name + "' must be " + std::string(rule->expected) + ", found " + TypeName(node));
      }
    }
  }

  int MaxSpillBytes(const toml::table& tune) {
    const auto* value = tune.get_as<int64_t>("max-spill-bytes");
    if (value == nullptr) return 0;
    constexpr int64_t kMax = std::numeric_limits<int>::max();
    if (value->get() < 0 || value->get() > kMax) {
      Fail(Where(value->source()), "'max-spill-bytes' must be between 0 and " +
                                       std::to_string(kMax) + ", found " +
                                       std::to_string(value->get()));
      return 0;
    }
    return static_cast<int>(value->get());
  }

  // A string key whose value must not be empty; nullptr when absent or not a string.
  const toml::value<std::string>* Filter(const toml::table& tune, const char* key,
                                         const std::string& example) {
    const auto* value = tune.get_as<std::string>(key);
    if (value != nullptr && value->get().empty()) {
      Fail(Where(value->source()), std::string("'") + key + "' is empty",
           "leave the key out to use every case, or give one, e.g. " + example);
      return nullptr;
    }
    return value;
  }

  std::string BenchFilter(const toml::table& tune) {
    const auto* value = Filter(tune, "bench-filter", "\"^gemm/4096x\"");
    if (value == nullptr) return {};
    // std::regex compiles by recursion: a long or deeply nested pattern would
    // overflow the stack here, or in the harness that matches it.
    if (value->get().size() > kMaxBenchFilterChars ||
        GroupNesting(value->get()) > kMaxBenchFilterGroups) {
      Fail(Where(value->source()),
           "'bench-filter' is longer than " + std::to_string(kMaxBenchFilterChars) +
               " characters or nests groups deeper than " + std::to_string(kMaxBenchFilterGroups),
           "name the cases to rank on, e.g. \"^rms_norm/(2048|32768)x4096 \"");
      return {};
    }
    try {
      std::regex check(value->get(), std::regex::extended);
    } catch (const std::regex_error& e) {
      Fail(Where(value->source()),
           "'bench-filter' is not a valid regular expression: " + std::string(e.what()),
           "it is matched against '<benchmark>/<case>' names, e.g. \"^rms_norm/(2048|32768)x4096 "
           "\"");
      return {};
    }
    return value->get();
  }

  std::string TestFilter(const toml::table& tune) {
    const auto* value = Filter(tune, "test-filter", "\"RmsNorm.ShortRows*\"");
    if (value == nullptr) return {};
    const std::string& text = value->get();
    const bool blank = std::any_of(text.begin(), text.end(), [](char c) {
      return static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
    });
    if (blank) {
      Fail(Where(value->source()), "'test-filter' holds a space or control character",
           "a GoogleTest pattern has none: 'Suite.Test' names, '*' and '?', joined by ':', "
           "exclusions after '-', e.g. \"RmsNorm.*:RowPlan.*-RmsNorm.Huge*\"");
      return {};
    }
    return text;
  }

  std::vector<TuneParam> Params(const toml::table& table) {
    std::vector<std::pair<SourceLocation, TuneParam>> found;
    for (auto&& [key, node] : table) {
      TuneParam param;
      param.name = std::string(key.str());
      if (CheckName(param.name, Where(key.source()))) {
        param.values = Values(param.name, node);
        found.emplace_back(Where(key.source()), std::move(param));
      }
    }
    // TOML++ iterates keys sorted by name; the file's order is the one to keep.
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return std::pair(a.first.line, a.first.column) < std::pair(b.first.line, b.first.column);
    });
    std::vector<TuneParam> params;
    for (auto& [at, param] : found) params.push_back(std::move(param));
    const SourceLocation header = Where(table.source());
    if (params.empty() && errors_.empty()) {
      Fail(header, "[tune.params] declares no parameters",
           "add one, e.g. BLOCK_THREADS = [128, 256]");
    } else if (table.size() > kMaxTuneParams) {
      Fail(header,
           "[tune.params] declares " + std::to_string(table.size()) + " parameters, at most " +
               std::to_string(kMaxTuneParams),
           "tune fewer parameters at a time");
    } else if (errors_.empty()) {
      const uint64_t points = TuneSpace{{}, params, {}, 0}.GridSize();
      if (points > kMaxTuneGridPoints) {
        Fail(header,
             "the search space has " + std::to_string(points) + " points, at most " +
                 std::to_string(kMaxTuneGridPoints),
             "remove values or parameters (constraints filter points one by one, so they do "
             "not shrink this count)");
      }
    }
    return params;
  }

  bool CheckName(const std::string& name, SourceLocation at) {
    const std::string quoted = "'" + CutForMessage(name) + "'";
    if (!IsCIdentifier(name) || name.size() > kMaxMacroDefineChars) {
      Fail(at,
           "invalid parameter name " + quoted +
               " in [tune.params]: use a C identifier (letters, digits and '_', not "
               "starting with a digit) of at most " +
               std::to_string(kMaxMacroDefineChars) + " characters",
           "parameters become macros (-DNAME=VALUE), e.g. BLOCK_THREADS");
    } else if (name.starts_with("__") || name.starts_with("KBUILD_")) {
      Fail(
          at,
          "parameter name " + quoted + " is reserved: names starting with '" +
              (name.starts_with("__") ? "__' belong to the compiler" : "KBUILD_' belong to kbuild"),
          "rename it");
    } else {
      return true;
    }
    return false;
  }

  std::vector<std::string> Values(const std::string& name, const toml::node& node) {
    const std::string key = "tune.params." + name;
    const auto* array = node.as_array();
    if (array == nullptr) {
      Fail(Where(node.source()),
           "'" + key + "' must be an array of integers or identifiers, found " + TypeName(node),
           "e.g. " + name + " = [128, 256]");
      return {};
    }
    if (array->empty() || array->size() > kMaxTuneValues) {
      Fail(Where(node.source()),
           "'" + key + "' has " + std::to_string(array->size()) + " values, it needs 1 to " +
               std::to_string(kMaxTuneValues),
           "e.g. " + name + " = [128, 256]");
      return {};
    }
    std::vector<std::string> values;
    bool integers = false;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const std::string at = key + "[" + std::to_string(i) + "]: ";
      std::string value;
      if (const auto* n = element.as_integer()) {
        value = std::to_string(n->get());
      } else if (const auto* s = element.as_string(); s && IsCIdentifier(s->get())) {
        value = s->get();
      } else if (s) {
        const std::string text = CutForMessage(s->get());
        const bool digits =
            !text.empty() && text.find_first_not_of("-0123456789") == std::string::npos;
        Fail(Where(element.source()), at + "'" + text + "' is not an identifier",
             digits
                 ? "write integers without quotes, e.g. " + text
                 : "identifiers are C names: letters, digits and '_', not starting with a digit");
        continue;
      } else {
        Fail(Where(element.source()),
             at + "expected an integer or an identifier, found " + TypeName(element));
        continue;
      }
      if (value.size() > kMaxMacroDefineChars) {
        Fail(Where(element.source()),
             at + "'" + CutForMessage(value) + "' is longer than " +
                 std::to_string(kMaxMacroDefineChars) + " characters",
             "a variant passes it as -D" + name + "=VALUE, as kbuild build --define does");
      } else if (!values.empty() && integers != element.is_integer()) {
        Fail(Where(element.source()), at + "mixes integers and identifiers",
             "give each parameter values of one kind");
      } else if (std::find(values.begin(), values.end(), value) != values.end()) {
        Fail(Where(element.source()), at + "duplicate value " + value, "list each value once");
      }
      integers = element.is_integer();
      values.push_back(value);
    }
    return values;
  }

  std::vector<TuneConstraint> Constraints(const toml::array& array,
                                          const std::vector<TuneParam>& params) {
    if (array.size() > kMaxTuneConstraints) {
      Fail(Where(array.source()),
           "'tune.constraints' has " + std::to_string(array.size()) + " entries, at most " +
               std::to_string(kMaxTuneConstraints),
           "combine conditions with &&");
      return {};
    }
    std::vector<TuneConstraint> constraints;
    for (size_t i = 0; i < array.size(); ++i) {
      const toml::node& element = *array.get(i);
      const std::string at = "tune.constraints[" + std::to_string(i) + "]: ";
      const auto* s = element.as_string();
      if (s == nullptr) {
        Fail(Where(element.source()), at + "expected a string, found " + TypeName(element),
             "quote each constraint, e.g. \"BLOCK_THREADS * VECS <= 4096\"");
        continue;
      }
      auto expr = ParseTuneExpr(s->get(), params);
      if (!expr) {
        const Error& e = expr.error();
        Fail(InFile(Where(element.source()), s->get(), e.column),
             at + e.message + " at column " + std::to_string(e.column), e.hint);
        continue;
      }
      constraints.push_back({s->get(), std::move(*expr)});
    }
    return constraints;
  }

  // Where column `column` of a constraint string lies in the file: exact for
  // a one-line string without escapes, else the string's opening quote.
  SourceLocation InFile(SourceLocation string_start, const std::string& text, int column) const {
    const std::string_view line = source_.Line(string_start.line);
    const size_t body = static_cast<size_t>(string_start.column);  // just after the quote
    if (string_start.column < 1 || line.substr(body, text.size()) != text) return string_start;
    return {string_start.line, string_start.column + column};
  }

  const std::string& text_;
  SourceText source_;
  std::vector<Error> errors_;
};

}  // namespace

uint64_t TuneSpace::GridSize() const {
  uint64_t points = 1;
  for (const auto& p : params) {
    if (__builtin_mul_overflow(points, p.values.size(), &points)) {
      return std::numeric_limits<uint64_t>::max();
    }
  }
  return points;
}

Expected<TuneSpace> ParseTuneSpace(const std::string& text, const std::string& display_path) {
  return TuneSpaceParser(text, display_path).Run();
}

Expected<TuneSpace> ReadTuneSpace(const FileSystem& fs, const std::filesystem::path& project_dir) {
  const std::filesystem::path file = project_dir / "kbuild.toml";
  const std::string display = file.lexically_normal().string();
  if (!fs.Exists(file)) {
    Error e = MakeError(ExitCode::kUsage, "no kbuild.toml in this project directory",
                        std::string("create it with a [tune] table: ") + kParamsExample +
                            " (the macros to search and their values)");
    e.path = display;
    return e;
  }
  auto text = fs.ReadAtMost(file, kMaxConfigBytes);
  if (!text) {
    Error e = text.error();
    e.path = display;
    return e;
  }
  auto space = ParseTuneSpace(*text, display);
  if (space) space->file = file;
  return space;
}

bool Satisfies(const TuneSpace& space, const TuneVariant& variant) {
  if (variant.values.size() != space.params.size()) return false;
  std::vector<int64_t> codes;
  for (size_t i = 0; i < space.params.size(); ++i) {
    const TuneParam& param = space.params[i];
    const auto& [name, value] = variant.values[i];
    const auto found = std::find(param.values.begin(), param.values.end(), value);
    if (name != param.name || found == param.values.end()) return false;
    codes.push_back(ParamValueCodes(param)[found - param.values.begin()]);
  }
  return std::all_of(space.constraints.begin(), space.constraints.end(),
                     [&](const TuneConstraint& c) { return c.expr.Holds(codes); });
}

std::string VariantId(const TuneVariant& variant) {
  std::string canonical;
  for (const auto& [name, value] : variant.values) canonical += name + "=" + value + "\n";
  return "v-" + Sha256Hex(canonical).substr(0, 16);
}

std::vector<std::string> DefineFlags(const TuneVariant& variant) {
  std::vector<std::string> flags;
  for (const auto& [name, value] : variant.values) flags.push_back("-D" + name + "=" + value);
  return flags;
}

}  // namespace kb
