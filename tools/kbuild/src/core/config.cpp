// build.toml -> ProjectConfig. One pass over the TOML tree collects every
// problem (unknown keys, wrong types, missing keys, bad values) so a user
// fixes them all in one round; each error points at the key or value.
#include "core/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

#include "core/compiler_flag_policy.h"
#include "core/config_schema.h"
#include "core/message_text.h"
#include "core/source_paths.h"
#include "core/suggest.h"

namespace kb {

namespace {

std::string_view TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    default:
      return "nothing";
  }
}

SourceLocation Where(const toml::source_region& region) {
  return {static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
}

bool HasKind(const toml::node& node, ValueKind kind) {
  switch (kind) {
    case ValueKind::kString:
      return node.is_string();
    case ValueKind::kInteger:
      return node.is_integer();
    case ValueKind::kTable:
      return node.is_table();
    case ValueKind::kStringArray:
      return node.is_array();  // elements checked on read
  }
  return false;
}

void SortByPosition(std::vector<Error>& errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const Error& a, const Error& b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
}

class ConfigParser {
 public:
  ConfigParser(const std::string& text, const std::string& display_path)
      : text_(text), source_(display_path, text) {}

  ConfigResult Run() {
    ConfigResult result;
    toml::table root;
    try {
      root = toml::parse(text_, source_.path());
    } catch (const toml::parse_error& e) {
      result.errors.push_back(source_.ErrorAt(
          ExitCode::kUsage, Where(e.source()), "invalid TOML: " + std::string(e.description()),
          "fix the TOML syntax at this spot (see https://toml.io)"));
      return result;
    }
    ProjectConfig config;
    CheckKeys(root, RootKeys(), "", {1, 0});
    if (const auto* general = root["general"].as_table()) ParseGeneral(*general, config);
    if (const auto* torch = root["torch"].as_table()) ParseTorch(*torch, config);
    if (const auto* kernels = root["kernel"].as_table()) ParseKernels(*kernels, config);
    // TOML++ iterates keys in sorted order; users read files top to bottom.
    SortByPosition(errors_);
    SortByPosition(warnings_);
    std::stable_sort(config.kernels.begin(), config.kernels.end(),
                     [](const KernelConfig& a, const KernelConfig& b) {
                       return a.location.line < b.location.line;
                     });
    result.errors = std::move(errors_);
    result.warnings = std::move(warnings_);
    if (result.errors.empty()) result.config = std::move(config);
    return result;
  }

 private:
  void Fail(SourceLocation at, std::string message, std::string hint = {}) {
    errors_.push_back(source_.ErrorAt(ExitCode::kUsage, at, std::move(message), std::move(hint)));
  }

  // Unknown keys, wrong value types and missing required keys of one table.
  // `header` is where the table starts, for "missing key" errors.
  void CheckKeys(const toml::table& table, const std::vector<KeySpec>& keys,
                 const std::string& table_name, SourceLocation header,
                 std::string_view backend = {}) {
    const std::string where = table_name.empty() ? "at the top level" : "in [" + table_name + "]";
    for (auto&& [key, node] : table) {
      const auto spec = std::find_if(keys.begin(), keys.end(),
                                     [&](const KeySpec& k) { return k.key == key.str(); });
      if (spec == keys.end()) {
        Fail(Where(key.source()), "unknown key '" + std::string(key.str()) + "' " + where,
             UnknownKeyHint(key.str(), keys, backend));
      } else if (!HasKind(node, spec->kind)) {
        Fail(Where(node.source()),
             "'" + std::string(key.str()) + "' must be " + std::string(ValueKindName(spec->kind)) +
                 ", found " + std::string(TypeName(node)),
             ValueKindHint(key.str(), spec->kind));
      }
    }
    for (const auto& spec : keys) {
      if (!spec.required || table.contains(spec.key)) continue;
      if (spec.kind == ValueKind::kTable) {
        const std::string prefix = table_name.empty() ? "" : table_name + ".";
        Fail(header, "missing required table [" + prefix + std::string(spec.key) + "]",
             "add " + std::string(spec.example));
      } else {
        Fail(header, "missing required key '" + std::string(spec.key) + "' " + where,
             "add " + std::string(spec.example));
      }
    }
  }

  static std::string UnknownKeyHint(std::string_view key, const std::vector<KeySpec>& keys,
                                    std::string_view backend) {
    const auto backends = BackendsAccepting(key);
    if (!backends.empty() && !backend.empty()) {
      return "'" + std::string(key) + "' is only valid for backend = \"" + backends.front() +
             "\" (this kernel's backend is \"" + std::string(backend) + "\")";
    }
    return SuggestionHint(key, KeyNames(keys));
  }

  std::optional<std::string> String(const toml::table& table, std::string_view key) {
    if (const auto* v = table.get_as<std::string>(key)) return v->get();
    return std::nullopt;
  }

  SourceLocation ValueLocation(const toml::table& table, std::string_view key) {
    const toml::node* node = table.get(key);
    return node ? Where(node->source()) : SourceLocation{};
  }

  // A string array; non-string elements are reported and skipped.
  std::vector<std::string> Strings(const toml::table& table, std::string_view key,
                                   std::vector<SourceLocation>* locations = nullptr) {
    std::vector<std::string> out;
    const auto* array = table.get_as<toml::array>(key);
    if (array == nullptr) return out;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      if (const auto* s = element.as_string()) {
        out.push_back(s->get());
        if (locations) locations->push_back(Where(element.source()));
      } else {
        Fail(Where(element.source()),
             "'" + std::string(key) + "' must be an array of strings, found " +
                 std::string(TypeName(element)) + " at element " + std::to_string(i + 1),
             "quote each element, e.g. " + std::string(key) + " = [\"...\"]");
      }
    }
    return out;
  }

  // A version string such as minver = "2.8"; reported when malformed.
  std::optional<std::string> Version(const toml::table& table, std::string_view key,
                                     const std::string& table_name) {
    auto value = String(table, key);
    if (value && !IsVersionString(*value)) {
      Fail(
          ValueLocation(table, key),
          "invalid version '" + *value + "' for '" + std::string(key) + "' in [" + table_name + "]",
          "use numbers separated by dots, e.g. " + std::string(key) + " = \"2.8\"");
      return std::nullopt;
    }
    return value;
  }

  // Paths are relative to the project root; an empty list or entry is useless.
  void CheckPaths(const toml::table& table, std::string_view key, const std::string& table_name,
                  const std::vector<std::string>& paths, const std::vector<SourceLocation>& at,
                  std::string_view example) {
    if (const auto* array = table.get_as<toml::array>(key); array && array->empty()) {
      Fail(ValueLocation(table, key), "'" + std::string(key) + "' is empty in [" + table_name + "]",
           "list at least one file, e.g. " + std::string(example));
    }
    CheckPathEntries(key, table_name, paths, at);
  }

  // Each entry names a file or folder inside the project that CMake can carry.
  void CheckPathEntries(std::string_view key, const std::string& table_name,
                        const std::vector<std::string>& paths,
                        const std::vector<SourceLocation>& at) {
    for (size_t i = 0; i < paths.size(); ++i) {
      if (paths[i].empty()) {
        Fail(at[i], "empty path in '" + std::string(key) + "' of [" + table_name + "]",
             "remove the empty entry");
      } else if (auto problem =
                     LexicalPathProblem(paths[i], std::string(key), "[" + table_name + "]")) {
        Fail(at[i], problem->message, problem->hint);
      }
    }
  }

  // The flags at `key`. Compiler flags reach CMake (which expands $ENV{...}, $<...> and splits at
  // ';') and nvcc, which hands -D values to a shell: each flag keeps to characters none of them
  // reads specially, and none makes the build run, read or write what it names
  // (compiler_flag_policy.h).
  std::vector<std::string> Flags(const toml::table& table, std::string_view key,
                                 const std::string& table_name) {
    std::vector<SourceLocation> at;
    std::vector<std::string> flags = Strings(table, key, &at);
    const auto safe = [](unsigned char c) {
      return std::isalnum(c) ||
             std::string_view("-_=.,:/+@%").find(static_cast<char>(c)) != std::string_view::npos;
    };
    for (size_t i = 0; i < flags.size(); ++i) {
      const auto bad = std::find_if_not(flags[i].begin(), flags[i].end(), safe);
      if (bad == flags[i].end()) {
        if (auto why = RefusedCompilerFlag(flags[i])) {
          Fail(at[i],
               "flag '" + CutForMessage(flags[i]) + "' in '" + std::string(key) + "' of [" +
                   table_name + "]: " + *why,
               "a build only compiles the project's sources, with the compilers CMake finds: "
               "put includes and settings in the sources");
        }
        continue;
      }
      const unsigned char c = static_cast<unsigned char>(*bad);
      const std::string shown =
          std::isprint(c) ? "'" + std::string(1, *bad) + "'" : "a control or non-ASCII byte";
      Fail(at[i],
           "flag '" + CutForMessage(flags[i]) + "' in '" + std::string(key) + "' of [" +
               table_name + "] holds " + shown,
           "flags keep to letters, digits and - _ = . , : / + @ % (CMake expands '$' and splits "
           "at ';', and nvcc passes -D values through a shell); put the value in a header");
    }
    return flags;
  }

  void ParseGeneral(const toml::table& general, ProjectConfig& config) {
    const SourceLocation header = Where(general.source());
    CheckKeys(general, GeneralKeys(), "general", header);
    if (auto name = String(general, "name")) {
      config.name = *name;
      if (!IsValidProjectName(*name)) {
        Fail(ValueLocation(general, "name"),
             "invalid project name '" + *name +
                 "': use lowercase letters, digits and dashes, starting with a letter and not "
                 "ending with a dash, at least 2 characters",
             "try name = \"" + SuggestProjectName(*name) + "\"");
      }
    }
    std::vector<SourceLocation> at;
    config.backends = Strings(general, "backends", &at);
    for (size_t i = 0; i < config.backends.size(); ++i) {
      CheckBackend(config.backends[i], at[i], "in [general] backends");
    }
    if (const auto* list = general.get_as<toml::array>("backends"); list && list->empty()) {
      Fail(ValueLocation(general, "backends"), "'backends' is empty in [general]",
           "list at least one, e.g. backends = [\"cuda\"]");
    }
    if (const auto* v = general.get_as<int64_t>("version")) {
      if (v->get() < 0 || v->get() > INT32_MAX) {
        Fail(Where(v->source()),
             "'version' must be a non-negative integer, found " + std::to_string(v->get()),
             "version is the major version, e.g. version = 1");
      }
      config.version = static_cast<int>(v->get());
    }
    if (const auto* v = general.get_as<int64_t>("edition"))
      config.edition = static_cast<int>(v->get());
    config.license = String(general, "license");
    if (!config.license && general.contains("name")) {
      warnings_.push_back(source_.ErrorAt(
          ExitCode::kOk, header, "[general] has no 'license'",
          "add a Hugging Face Hub license id, e.g. license = \"apache-2.0\", before publishing"));
    }
    config.upstream = String(general, "upstream");
    config.source = String(general, "source");
    config.python_depends = Strings(general, "python-depends");
    if (const auto* hub = general["hub"].as_table()) {
      CheckKeys(*hub, HubKeys(), "general.hub", Where(hub->source()));
      config.hub = HubConfig{String(*hub, "repo-id"), String(*hub, "branch")};
    }
    if (const auto* cuda = general["cuda"].as_table()) {
      CheckKeys(*cuda, GeneralCudaKeys(), "general.cuda", Where(cuda->source()));
      config.cuda_minver = Version(*cuda, "minver", "general.cuda");
      config.cuda_maxver = Version(*cuda, "maxver", "general.cuda");
      config.cuda_python_depends = Strings(*cuda, "python-depends");
    }
    if (const auto* xpu = general["xpu"].as_table()) {
      CheckKeys(*xpu, GeneralXpuKeys(), "general.xpu", Where(xpu->source()));
      config.xpu_python_depends = Strings(*xpu, "python-depends");
    }
  }

  bool CheckBackend(const std::string& backend, SourceLocation at, const std::string& where) {
    if (std::find(KnownBackends().begin(), KnownBackends().end(), backend) !=
        KnownBackends().end()) {
      return true;
    }
    Fail(at, "unknown backend '" + backend + "' " + where,
         SuggestionHint(backend, KnownBackends()));
    return false;
  }

  void ParseTorch(const toml::table& table, ProjectConfig& config) {
    TorchConfig torch;
    torch.location = Where(table.source());
    CheckKeys(table, TorchKeys(), "torch", torch.location);
    torch.src = Strings(table, "src", &torch.src_locations);
    CheckPaths(table, "src", "torch", torch.src, torch.src_locations,
               "src = [\"torch-ext/torch_binding.cpp\"]");
    torch.include = Strings(table, "include", &torch.include_locations);
    CheckPathEntries("include", "torch", torch.include, torch.include_locations);
    torch.pyext = Strings(table, "pyext");
    torch.minver = Version(table, "minver", "torch");
    torch.maxver = Version(table, "maxver", "torch");
    config.torch = std::move(torch);
  }

  void ParseKernels(const toml::table& kernels, ProjectConfig& config) {
    for (auto&& [key, node] : kernels) {
      const std::string name(key.str());
      const auto* table = node.as_table();
      if (table == nullptr) {
        Fail(Where(node.source()),
             "'kernel." + name + "' must be a table, found " + std::string(TypeName(node)),
             "declare each kernel as a [kernel." + name + "] section");
        continue;
      }
      if (!IsValidKernelName(name)) {
        Fail(Where(key.source()),
             "invalid kernel name '" + name +
                 "': use lowercase letters, digits, '_' and '-', starting with a letter",
             "try [kernel." + SuggestProjectName(name) + "]");
      }
      config.kernels.push_back(ParseKernel(name, *table, config));
    }
  }

  KernelConfig ParseKernel(const std::string& name, const toml::table& table,
                           const ProjectConfig& config) {
    KernelConfig kernel;
    kernel.name = name;
    kernel.location = Where(table.source());
    const std::string table_name = "kernel." + name;
    kernel.backend = String(table, "backend").value_or("");
    bool backend_known = false;
    if (table.get_as<std::string>("backend")) {
      backend_known =
          CheckBackend(kernel.backend, ValueLocation(table, "backend"), "in [" + table_name + "]");
    }
    CheckKeys(table, KernelKeys(backend_known ? kernel.backend : ""), table_name, kernel.location,
              backend_known ? kernel.backend : "");
    if (backend_known && !config.backends.empty() &&
        std::find(config.backends.begin(), config.backends.end(), kernel.backend) ==
            config.backends.end()) {
      warnings_.push_back(
          source_.ErrorAt(ExitCode::kOk, ValueLocation(table, "backend"),
                          "[" + table_name + "] has backend '" + kernel.backend +
                              "', which [general] backends does not list",
                          "add \"" + kernel.backend + "\" to backends, or remove this kernel"));
    }
    kernel.depends = Strings(table, "depends");
    kernel.src = Strings(table, "src", &kernel.src_locations);
    CheckPaths(table, "src", table_name, kernel.src, kernel.src_locations,
               "src = [\"" + name + "_cuda/" + name + ".cu\"]");
    kernel.include = Strings(table, "include", &kernel.include_locations);
    CheckPathEntries("include", table_name, kernel.include, kernel.include_locations);
    kernel.cuda_capabilities =
        Strings(table, "cuda-capabilities", &kernel.cuda_capability_locations);
    for (size_t i = 0; i < kernel.cuda_capabilities.size(); ++i) {
      const std::string& cap = kernel.cuda_capabilities[i];
      if (IsCudaCapability(cap)) continue;
      const std::string guess = GuessCudaCapability(cap);
      Fail(kernel.cuda_capability_locations[i],
           "invalid CUDA capability '" + cap + "' in [" + table_name +
               "]: expected MAJOR.MINOR like \"9.0\"",
           guess.empty() ? "write capabilities as \"MAJOR.MINOR\", e.g. \"9.0\" for H100/H200"
                         : "write \"" + guess + "\"");
    }
    kernel.cuda_flags = Flags(table, "cuda-flags", table_name);
    kernel.cxx_flags = Flags(table, "cxx-flags", table_name);
    kernel.cuda_minver = Version(table, "cuda-minver", table_name);
    kernel.rocm_archs = Strings(table, "rocm-archs");
    kernel.hip_flags = Flags(table, "hip-flags", table_name);
    kernel.sycl_flags = Flags(table, "sycl-flags", table_name);
    return kernel;
  }

  const std::string& text_;
  SourceText source_;
  std::vector<Error> errors_;
  std::vector<Error> warnings_;
};

}  // namespace

std::string ProjectConfig::PythonName() const {
  std::string out = name;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

ConfigResult ParseProjectConfigAll(const std::string& text, const std::string& display_path) {
  return ConfigParser(text, display_path).Run();
}

std::string ConfigDisplayPath(const std::filesystem::path& project_dir) {
  return (project_dir / "build.toml").lexically_normal().string();
}

ConfigResult LoadProjectConfigAll(const FileSystem& fs, const std::filesystem::path& project_dir) {
  const std::string display = ConfigDisplayPath(project_dir);
  const std::filesystem::path file = project_dir / "build.toml";
  ConfigResult result;
  if (!fs.Exists(file)) {
    Error e =
        MakeError(ExitCode::kUsage, "no build.toml in this project directory",
                  "run 'kbuild init NAME' to create a project, or pass -C DIR to point at one");
    e.path = display;
    result.errors.push_back(std::move(e));
    return result;
  }
  if (fs.KindOf(file) == FileKind::kSymlink) {  // it would be read, and shown, from anywhere
    Error e = MakeError(ExitCode::kUsage, "build.toml is a symbolic link",
                        "replace it with the file itself (kbuild package refuses the link too)");
    e.path = display;
    result.errors.push_back(std::move(e));
    return result;
  }
  auto text = fs.ReadAtMost(file, kMaxConfigBytes);
  if (!text) {
    result.errors.push_back(text.error());
    result.errors.back().path = display;
    return result;
  }
  result = ParseProjectConfigAll(*text, display);
  if (result.config) {
    result.config->root = project_dir;
    result.config->file = file;
  }
  return result;
}

Expected<ProjectConfig> ParseProjectConfig(const std::string& text,
                                           const std::string& display_path) {
  ConfigResult result = ParseProjectConfigAll(text, display_path);
  if (!result.errors.empty()) return result.errors.front();
  return std::move(*result.config);
}

Expected<ProjectConfig> LoadProjectConfig(const FileSystem& fs,
                                          const std::filesystem::path& project_dir) {
  ConfigResult result = LoadProjectConfigAll(fs, project_dir);
  if (!result.errors.empty()) return result.errors.front();
  return std::move(*result.config);
}

}  // namespace kb
