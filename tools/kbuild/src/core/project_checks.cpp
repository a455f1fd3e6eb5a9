#include "core/project_checks.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/cmake_gen.h"
#include "core/include_listing.h"
#include "core/op_names.h"
#include "core/source_paths.h"
#include "core/stop_signal.h"
#include "core/suggest.h"
#include "core/toml_location.h"

namespace kb {

namespace {

// Kernel sources compile without torch so an edit recompiles in ~2 s
// (docs/ANCHORS.md: 2.0 s plain .cu vs 8-20 s with torch headers).
constexpr std::string_view kTorchHeaderPrefixes[] = {"torch/", "ATen/", "c10/"};
constexpr std::string_view kRegistrationMacros[] = {"TORCH_LIBRARY(", "TORCH_LIBRARY_EXPAND("};
constexpr size_t kMaxListedFiles = 8;

std::string DisplayPath(const ProjectConfig& config, const std::string& relative) {
  return (config.root / relative).lexically_normal().string();
}

SourceText BuildToml(const FileSystem& fs, const ProjectConfig& config) {
  auto text = fs.Read(config.root / "build.toml");
  return SourceText(ConfigDisplayPath(config.root), text ? *text : std::string());
}

bool IsCommentLine(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  line.remove_prefix(first);
  return line.starts_with("//") || line.starts_with("/*") || line.starts_with("*");
}

struct Include {
  std::string target;  // x in #include "x" or <x>
  int column = 0;      // of '#'
  bool quoted = false;
};

// `#include <x>` or `#include "x"` on this line.
std::optional<Include> IncludeTarget(std::string_view line) {
  const size_t hash = line.find_first_not_of(" \t");
  if (hash == std::string_view::npos || line[hash] != '#') return std::nullopt;
  size_t pos = line.find_first_not_of(" \t", hash + 1);
  if (pos == std::string_view::npos || line.substr(pos, 7) != "include") return std::nullopt;
  pos = line.find_first_not_of(" \t", pos + 7);
  if (pos == std::string_view::npos || (line[pos] != '<' && line[pos] != '"')) return std::nullopt;
  const char close = line[pos] == '<' ? '>' : '"';
  const size_t end = line.find(close, pos + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return Include{std::string(line.substr(pos + 1, end - pos - 1)), static_cast<int>(hash) + 1,
                 close == '"'};
}

bool IsTorchHeader(std::string_view header) {
  return std::any_of(std::begin(kTorchHeaderPrefixes), std::end(kTorchHeaderPrefixes),
                     [&](std::string_view p) { return header.starts_with(p); });
}

bool HasExtension(const std::string& path, std::initializer_list<std::string_view> exts) {
  return std::any_of(exts.begin(), exts.end(),
                     [&](std::string_view e) { return path.ends_with(e); });
}

class FileChecker {
 public:
  FileChecker(const FileSystem& fs, const ProjectConfig& config)
      : fs_(fs), config_(config), build_toml_(BuildToml(fs, config)) {}

  CheckFindings Run() {
    for (const auto& kernel : config_.kernels) listed_.insert(kernel.src.begin(), kernel.src.end());
    if (config_.torch) listed_.insert(config_.torch->src.begin(), config_.torch->src.end());
    for (const auto& kernel : config_.kernels) {
      const std::string table = "[kernel." + kernel.name + "]";
      CheckListed(kernel.src, kernel.src_locations, table, /*directories=*/false);
      CheckListed(kernel.include, kernel.include_locations, table, /*directories=*/true);
      for (const auto& src : kernel.src) ScanKernelSource(src, kernel);
    }
    if (config_.torch) {
      const TorchConfig& torch = *config_.torch;
      CheckListed(torch.src, torch.src_locations, "[torch]", false);
      CheckListed(torch.include, torch.include_locations, "[torch]", true);
      for (const auto& src : torch.src) ScanBindingSource(src);
    }
    CheckRegistration();
    CheckPythonPackage();
    return std::move(findings_);
  }

 private:
  void Fail(Error error) { findings_.errors.push_back(std::move(error)); }

  // A source read and split into lines once, however many findings it has (read again per
  // finding, a file with 20,000 of them took minutes).
  const SourceText& Source(const std::string& relative) {
    auto it = sources_.find(relative);
    if (it == sources_.end()) {
      auto text = fs_.Read(config_.root / relative);
      it = sources_
               .emplace(relative,
                        SourceText(DisplayPath(config_, relative), text ? *text : std::string()))
               .first;
    }
    return it->second;
  }

  Error FileError(const std::string& relative, SourceLocation at, std::string message,
                  std::string hint) {
    return Source(relative).ErrorAt(ExitCode::kCheckFailed, at, std::move(message),
                                    std::move(hint));
  }

  void CheckListed(const std::vector<std::string>& paths, const std::vector<SourceLocation>& at,
                   const std::string& table, bool directories) {
    const ListedKind kind = directories ? ListedKind::kIncludeDirectory : ListedKind::kSourceFile;
    for (size_t i = 0; i < paths.size(); ++i) {
      const SourceLocation where = i < at.size() ? at[i] : SourceLocation{};
      // Symlinks, directories and FIFOs are refused before anything reads them.
      if (auto problem = DiskPathProblem(fs_, config_.root, paths[i], kind, table)) {
        missing_.insert(paths[i]);
        Fail(build_toml_.ErrorAt(ExitCode::kCheckFailed, where, problem->message, problem->hint));
        continue;
      }
      if (fs_.KindOf(config_.root / paths[i]) != FileKind::kMissing) continue;
      missing_.insert(paths[i]);
      Fail(build_toml_.ErrorAt(
          ExitCode::kCheckFailed, where,
          ListedKindName(kind) + " '" + paths[i] + "' in " + table + " does not exist",
          NearFilesHint(paths[i])));
    }
  }

  // "did you mean 'x'?" (a file not listed yet, by file name), or the files
  // next to the missing one.
  std::string NearFilesHint(const std::string& relative) {
    const fs::path parent = fs::path(relative).parent_path();
    std::vector<std::string> candidates, unlisted_names;
    if (fs_.IsDirectory(config_.root / parent)) {
      for (const auto& f : fs_.ListFilesRecursive(config_.root / parent)) {
        candidates.push_back((parent / f).generic_string());
        if (!listed_.count(candidates.back())) unlisted_names.push_back(f.generic_string());
      }
    }
    const std::string name = fs::path(relative).filename().string();
    if (auto near = NearestName(name, unlisted_names)) {
      return "did you mean '" + (parent / *near).generic_string() + "'?";
    }
    const std::string dir = parent.empty() ? "the project directory" : "'" + parent.string() + "/'";
    if (candidates.empty()) {
      return dir + " has no files: create the file or fix the path in build.toml";
    }
    std::string list;
    for (size_t i = 0; i < candidates.size() && i < kMaxListedFiles; ++i) {
      list += (i ? ", " : "") + candidates[i];
    }
    if (candidates.size() > kMaxListedFiles) list += ", ...";
    return "files in " + dir + ": " + list;
  }

  // Calls `visit(line_number, line)` for each line of a readable source.
  template <typename Visit>
  void ForEachLine(const std::string& relative, Visit visit) {
    if (missing_.count(relative) || !fs_.Exists(config_.root / relative)) return;
    const SourceText& source = Source(relative);
    // Ctrl-C ends a long scan here; the command then reports the stop.
    for (int n = 1; n <= source.line_count() && StopSignal() == 0; ++n) visit(n, source.Line(n));
  }

  void ScanKernelSource(const std::string& relative, const KernelConfig& kernel) {
    const bool header_rule = HasExtension(relative, {".cu", ".cuh", ".h", ".hpp"});
    ForEachLine(relative, [&](int n, std::string_view line) {
      auto include = IncludeTarget(line);
      if (include && !IsCommentLine(line)) CheckIncludeListed(relative, n, *include, kernel);
      if (header_rule && include && IsTorchHeader(include->target)) {
        Fail(FileError(relative, {n, include->column},
                       "kernel source includes the torch header <" + include->target + ">",
                       "kernel sources include CUDA headers only, so they recompile in ~2 s: move "
                       "the torch code to torch-ext/torch_binding.cpp and call a launcher that "
                       "takes raw pointers, sizes and a cudaStream_t"));
      }
      CheckPybind(relative, n, line);
    });
  }

  // kernel-builder copies only listed files: an unlisted project header
  // compiles here and breaks the Hub build.
  void CheckIncludeListed(const std::string& relative, int n, const Include& include,
                          const KernelConfig& kernel) {
    auto file = ResolveProjectInclude(fs_, config_.root, relative, include.target, include.quoted,
                                      kernel.include);
    if (!file || std::any_of(kernel.src.begin(), kernel.src.end(), [&](const std::string& s) {
          return fs::path(s).lexically_normal().generic_string() == *file;
        })) {
      return;
    }
    Fail(FileError(relative, {n, include.column},
                   "'" + *file + "' is included but not listed in [kernel." + kernel.name + "] src",
                   "add \"" + *file + "\" to src in [kernel." + kernel.name +
                       "]: the Hub build copies only listed files"));
  }

  void ScanBindingSource(const std::string& relative) {
    ForEachLine(relative, [&](int n, std::string_view line) {
      if (auto include = IncludeTarget(line); include && include->target == "torch/extension.h") {
        Fail(FileError(relative, {n, include->column}, "binding includes <torch/extension.h>",
                       "include <torch/library.h> and the ATen headers you use instead: "
                       "torch/extension.h pulls in pybind11 and Python and more than doubles "
                       "the compile time"));
      }
      CheckPybind(relative, n, line);
      if (!IsCommentLine(line) &&
          std::any_of(std::begin(kRegistrationMacros), std::end(kRegistrationMacros),
                      [&](std::string_view m) { return line.find(m) != std::string_view::npos; })) {
        registered_ = true;
      }
    });
  }

  void CheckPybind(const std::string& relative, int n, std::string_view line) {
    if (IsCommentLine(line)) return;
    size_t at = line.find("PYBIND11_MODULE");
    if (at == std::string_view::npos) at = line.find("pybind11");
    if (at == std::string_view::npos) return;
    Fail(FileError(
        relative, {n, static_cast<int>(at) + 1}, "pybind11 is not used in kernel projects",
        "register ops with the torch dispatcher instead "
        "(TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) in torch-ext/torch_binding.cpp); "
        "the library is loaded with torch.ops.load_library, no Python module is built"));
  }

  void CheckRegistration() {
    constexpr const char* kHowTo =
        "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) { ops.def(\"...\"); "
        "ops.impl(\"...\", torch::kCUDA, &fn); } in torch-ext/torch_binding.cpp";
    if (!config_.torch || config_.torch->src.empty()) {
      Error e = build_toml_.ErrorAt(
          ExitCode::kCheckFailed, config_.torch ? config_.torch->location : SourceLocation{},
          "no binding sources: ops are not registered with the torch dispatcher",
          "add [torch] src = [\"torch-ext/torch_binding.cpp\", \"torch-ext/torch_binding.h\"] "
          "with " +
              std::string(kHowTo));
      Fail(std::move(e));
      return;
    }
    const bool all_missing =
        std::all_of(config_.torch->src.begin(), config_.torch->src.end(),
                    [&](const std::string& s) { return missing_.count(s) > 0; });
    if (registered_ || all_missing) return;
    Fail(build_toml_.ErrorAt(ExitCode::kCheckFailed, config_.torch->location,
                             "no [torch] src registers ops (no TORCH_LIBRARY or "
                             "TORCH_LIBRARY_EXPAND found)",
                             "register each op with the dispatcher: " + std::string(kHowTo)));
  }

  void CheckPythonPackage() {
    if (config_.name.empty()) return;
    const std::string init = "torch-ext/" + config_.PythonName() + "/__init__.py";
    if (fs_.Exists(config_.root / init)) return;
    Error e = MakeError(ExitCode::kCheckFailed, "missing Python package " + init,
                        "create it: 'from ._ops import ops, add_op_namespace_prefix', then define "
                        "the Python API and register fake impls with torch.library.register_fake");
    e.path = DisplayPath(config_, init);
    Fail(std::move(e));
  }

  const FileSystem& fs_;
  const ProjectConfig& config_;
  SourceText build_toml_;
  CheckFindings findings_;
  std::set<std::string> listed_;   // every src entry: not suggested for a missing one
  std::set<std::string> missing_;  // listed files that are absent or refused: not scanned
  std::map<std::string, SourceText> sources_;  // Source(): each file read once
  bool registered_ = false;
};

// "9.0" / "9.0a" -> "90"; the number nvcc uses in compute_XX.
std::string CapabilityNumber(std::string_view capability) {
  std::string out;
  for (char c : capability) {
    if (c >= '0' && c <= '9') out += c;
  }
  return out;
}

bool AnyCapabilities(const ProjectConfig& config) {
  return std::any_of(config.kernels.begin(), config.kernels.end(), [](const KernelConfig& k) {
    return k.backend == "cuda" && !k.cuda_capabilities.empty();
  });
}

}  // namespace

std::string ArchToCapability(const std::string& arch) {
  std::string digits = CapabilityNumber(arch);
  if (digits.size() < 2) return arch;
  return digits.substr(0, digits.size() - 1) + "." + digits.back();
}

CheckFindings CheckProjectFiles(const FileSystem& fs, const ProjectConfig& config) {
  return FileChecker(fs, config).Run();
}

CheckFindings CheckCudaCapabilities(const FileSystem& fs, const ProjectConfig& config,
                                    const std::vector<std::string>& nvcc_archs) {
  CheckFindings findings;
  if (!AnyCapabilities(config)) return findings;
  const SourceText build_toml = BuildToml(fs, config);
  if (nvcc_archs.empty()) {
    findings.warnings.push_back(build_toml.ErrorAt(
        ExitCode::kOk, {}, "nvcc listed no GPU architectures: cuda-capabilities not checked",
        "run 'nvcc --list-gpu-arch' by hand to see why"));
    return findings;
  }
  // Listed in numeric order (nvcc prints 11.0 before 10.3).
  std::set<std::string> supported;
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& arch : nvcc_archs) {
    const std::string number = CapabilityNumber(arch);
    if (!number.empty() && supported.insert(number).second) {
      ordered.emplace_back(std::stoi(number), ArchToCapability(arch));
    }
  }
  std::sort(ordered.begin(), ordered.end());
  std::string supported_list;
  for (const auto& [number, capability] : ordered) {
    supported_list += (supported_list.empty() ? "" : ", ") + capability;
  }
  for (const auto& kernel : config.kernels) {
    if (kernel.backend != "cuda") continue;
    for (size_t i = 0; i < kernel.cuda_capabilities.size(); ++i) {
      const std::string& cap = kernel.cuda_capabilities[i];
      if (supported.count(CapabilityNumber(cap))) continue;
      findings.errors.push_back(build_toml.ErrorAt(
          ExitCode::kCheckFailed,
          i < kernel.cuda_capability_locations.size() ? kernel.cuda_capability_locations[i]
                                                      : kernel.location,
          "CUDA capability '" + cap + "' in [kernel." + kernel.name +
              "] is not supported by the installed nvcc",
          "supported: " + supported_list + "; remove it, or use a CUDA Toolkit that supports it"));
    }
  }
  return findings;
}

CheckFindings CheckCudaCapabilitiesWithNvcc(const FileSystem& fs, const ProjectConfig& config,
                                            ProcessRunner& runner, const CudaSearch& search) {
  if (!AnyCapabilities(config)) return {};
  auto cuda = DiscoverCuda(runner, search);
  if (!cuda) {
    Error e = cuda.error();
    e.message = "cannot check cuda-capabilities: " + e.message;
    CheckFindings findings;
    findings.errors.push_back(std::move(e));
    return findings;
  }
  return CheckCudaCapabilities(fs, config, cuda->archs);
}

namespace {

std::string Count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

void Append(std::vector<Error>& to, std::vector<Error> from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

ProjectCheckResult CheckProject(const FileSystem& fs, ProcessRunner& runner,
                                const std::filesystem::path& project_dir,
                                const CudaSearch& search) {
  ProjectCheckResult result;
  result.config_path = ConfigDisplayPath(project_dir);
  ConfigResult parsed = LoadProjectConfigAll(fs, project_dir);
  result.errors = std::move(parsed.errors);
  result.warnings = std::move(parsed.warnings);
  if (!parsed.config) return result;  // file checks need a valid build.toml
  result.config = std::move(parsed.config);
  for (CheckFindings findings :
       {CheckProjectFiles(fs, *result.config),
        CheckCudaCapabilitiesWithNvcc(fs, *result.config, runner, search)}) {
    Append(result.errors, std::move(findings.errors));
    Append(result.warnings, std::move(findings.warnings));
  }
  for (const char* dir : {"tests", "benchmarks"}) {
    auto files = HarnessCppFiles(fs, result.config->root / dir);
    if (!files) result.errors.push_back(files.error());
  }
  Append(result.warnings, CheckHarnessOpNames(fs, *result.config));
  return result;
}

ExitCode CheckExitCode(const std::vector<Error>& errors) {
  for (ExitCode code : {ExitCode::kUsage, ExitCode::kCheckFailed, ExitCode::kEnvironment}) {
    if (std::any_of(errors.begin(), errors.end(), [&](const Error& e) { return e.code == code; })) {
      return code;
    }
  }
  return errors.empty() ? ExitCode::kOk : ExitCode::kInternal;
}

std::string CheckSummary(const ProjectCheckResult& result) {
  const std::string warnings =
      result.warnings.empty() ? "" : ", " + Count(result.warnings.size(), "warning");
  if (!result.errors.empty()) return "check: " + Count(result.errors.size(), "error") + warnings;
  size_t sources = result.config->torch ? result.config->torch->src.size() : 0;
  for (const auto& kernel : result.config->kernels) sources += kernel.src.size();
  return "check: ok (" + result.config->name + ": " +
         Count(result.config->kernels.size(), "kernel") + ", " + Count(sources, "source") + ")" +
         warnings;
}

}  // namespace kb
