#include "core/build_pipeline.h"

#include "core/harness_library.h"
#include "core/kbuild_home.h"
#include "core/macro_defines.h"
#include "core/project_checks.h"
#include "core/variant.h"

namespace kb {

namespace {

Expected<std::string> NamespaceFor(const FileSystem& fs, const ProjectConfig& config) {
  std::vector<NamedSource> sources;
  for (const auto& rel : config.torch ? config.torch->src : std::vector<std::string>{}) {
    auto content = fs.Read(config.root / rel);
    if (!content) {
      Error e = content.error();
      e.message = "binding source listed in [torch] src does not exist: " + rel;
      e.path = "build.toml";
      e.hint = "create it or fix the path in build.toml";
      return e;
    }
    sources.push_back({rel, *content});
  }
  return OpNamespace(config.PythonName(), config.version, std::move(sources));
}

void WarnOnCudaMismatch(const TorchEnv& torch, const CudaEnv& cuda,
                        std::vector<std::string>* warnings) {
  auto t = ParseMajorMinor(torch.cuda);
  auto n = ParseMajorMinor(cuda.version);
  if (t && n && t->major != n->major) {
    warnings->push_back("torch was built with CUDA " + torch.cuda + " but nvcc is CUDA " +
                        cuda.version + ": the build links, but install a torch built for CUDA " +
                        std::to_string(n->major) + " (or point CUDA_HOME at a CUDA " +
                        std::to_string(t->major) + " toolkit) before trusting it");
  }
}

// The first finding of a failed project check, as a bad-project error (exit 2).
Status RefuseFailedChecks(const CheckFindings& findings) {
  if (findings.errors.empty()) return {};
  Error e = findings.errors.front();
  if (e.code != ExitCode::kEnvironment) e.code = ExitCode::kUsage;
  if (findings.errors.size() > 1) {
    e.hint += std::string(e.hint.empty() ? "" : "; ") + "run 'kbuild check' for all " +
              std::to_string(findings.errors.size()) + " findings";
  }
  return e;
}

}  // namespace

Expected<std::string> ReadResource(const FileSystem& fs, const std::string& name) {
  auto text = fs.Read(ResourcePath(name));
  if (!text) {
    Error e = text.error();
    e.message = "cannot read kbuild resource '" + name + "'";
    e.hint = DataFolderHint("tools/kbuild/resources");
    return e;
  }
  return text;
}

Expected<PreparedBuild> PrepareBuild(FileSystem& fs, ProcessRunner& runner,
                                     const PipelineOptions& options) {
  PreparedBuild p;
  p.paths = MakeBuildPaths(options.project_dir);
  auto config = LoadProjectConfig(fs, p.paths.project);
  if (!config) return config.error();
  p.config = std::move(*config);
  p.config.root = p.paths.project;  // generated CMake needs absolute paths
  // Refuse what `kbuild check` would refuse before CMake turns it into a less clear error.
  if (auto status = RefuseFailedChecks(CheckProjectFiles(fs, p.config)); !status) {
    return status.error();
  }

  TorchSearch search;
  search.project_dir = p.paths.project;
  search.kbuild_root = KbuildHome();
  search.cache_file = p.paths.torch_cache;
  auto torch = DiscoverTorch(fs, runner, search);
  if (!torch) return torch.error();
  p.torch = std::move(*torch);
  auto cuda = DiscoverCuda(runner);
  if (!cuda) return cuda.error();
  p.cuda = std::move(*cuda);
  if (auto status = RefuseFailedChecks(CheckCudaCapabilities(fs, p.config, p.cuda.archs));
      !status) {
    return status.error();
  }
  WarnOnCudaMismatch(p.torch, p.cuda, &p.warnings);

  auto variant = VariantName(p.torch.version, p.torch.cuda, p.torch.cxx11_abi);
  if (!variant) return variant.error();
  p.variant = *variant;
  auto op_namespace = NamespaceFor(fs, p.config);
  if (!op_namespace) return op_namespace.error();
  p.op_namespace = *op_namespace;

  GenerateOptions generate;
  auto defines = ParseMacroDefines(options.defines);
  if (!defines) return defines.error();
  generate.defines = std::move(*defines);
  generate.arch_override = options.arch;
  generate.debug = options.debug;
  generate.ccache = FindOnPath("ccache");
  generate.harness_cmake = KbuildHome() / "tools" / "harness" / "harness.cmake";
  // Named here, built by kbuild test and bench only: kbuild build writes the same CMakeLists.txt
  // (so nothing reconfigures between them) without building the harness.
  if (fs.Exists(*generate.harness_cmake)) {
    const HarnessLibraryInputs inputs{generate.harness_cmake->parent_path(),
                                      ToolchainKey(p.torch, p.cuda), options.debug};
    auto cache = CacheDir();
    if (!cache) return cache.error();
    std::error_code ec;
    auto dir = HarnessLibraryDir(fs, inputs, std::filesystem::absolute(*cache, ec));
    if (!dir) return dir.error();
    generate.harness_prebuilt_dir = *dir;
  }
  auto plan =
      PlanFromConfig(p.config, fs, p.torch, p.op_namespace, p.paths.generated_include, generate);
  if (!plan) return plan.error();
  p.plan = std::move(*plan);
  auto cmake_lists = RenderCMakeLists(p.plan);
  if (!cmake_lists) return cmake_lists.error();
  p.cmake_lists = *cmake_lists;
  auto registration = ReadResource(fs, "registration.h");
  if (!registration) return registration.error();
  p.registration_h = *registration;
  return p;
}

nlohmann::json ToolchainKey(const TorchEnv& torch, const CudaEnv& cuda) {
  nlohmann::json key = {
      {"torch", TorchEnvToJson(torch)}, {"nvcc", cuda.nvcc.string()}, {"cuda", cuda.build}};
  key["torch"].erase("python");  // same torch through another python is fine
  key["torch"].erase("found_by");
  return key;
}

Expected<BuildOutcome> BuildTarget(FileSystem& fs, ProcessRunner& runner, const PreparedBuild& p,
                                   const TargetBuild& build) {
  BuildRequest request;
  request.paths = p.paths;
  request.cmake_lists = p.cmake_lists;
  request.registration_h = p.registration_h;
  request.toolchain_key = ToolchainKey(p.torch, p.cuda);
  request.nvcc = p.cuda.nvcc;
  request.target = build.target;
  request.jobs = build.jobs;
  request.verbose = build.verbose;
  request.progress = build.progress;
  return RunBuild(fs, runner, request);
}

}  // namespace kb
