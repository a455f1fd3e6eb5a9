// kbuild build: build.toml -> generated CMake/Ninja project -> Kernel Hub
// variant build/<variant>/ loadable by kernels.get_local_kernel.
#include <chrono>
#include <cstdio>
#include <memory>

#include "commands/command.h"
#include "core/build_runner.h"
#include "core/cmake_gen.h"
#include "core/config.h"
#include "core/cuda_env.h"
#include "core/hub_layout.h"
#include "core/kbuild_home.h"
#include "core/metadata.h"
#include "core/paths.h"
#include "core/report.h"
#include "core/torch_env.h"
#include "core/variant.h"

namespace kb {

namespace {

namespace fs = std::filesystem;

struct BuildFlags {
  std::vector<std::string> arch;
  bool debug = false;
  bool verbose = false;
  bool json = false;
  int jobs = 0;
};

Expected<std::string> ReadResource(const FileSystem& fs, const std::string& name) {
  auto text = fs.Read(ResourcePath(name));
  if (!text) {
    Error e = text.error();
    e.message = "cannot read kbuild resource '" + name + "'";
    e.hint =
        "set KBUILD_HOME to the kbuild source tree (the folder holding tools/kbuild/resources)";
    return e;
  }
  return text;
}

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

void WarnOnCudaMismatch(Report& report, const TorchEnv& torch, const CudaEnv& cuda) {
  auto t = ParseMajorMinor(torch.cuda);
  auto n = ParseMajorMinor(cuda.version);
  if (t && n && t->major != n->major) {
    report.Warning("torch was built with CUDA " + torch.cuda + " but nvcc is CUDA " + cuda.version +
                   ": the build links, but install a torch built for CUDA " +
                   std::to_string(n->major) + " (or point CUDA_HOME at a CUDA " +
                   std::to_string(t->major) + " toolkit) before trusting it");
  }
}

int RunBuildCommand(const GlobalOptions& global, const BuildFlags& flags) {
  const auto start = std::chrono::steady_clock::now();
  Report report("build", flags.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  const BuildPaths paths = MakeBuildPaths(global.project_dir);

  auto config = LoadProjectConfig(fs, paths.project);
  if (!config) return report.Fail(config.error());
  config->root = paths.project;  // generated CMake needs absolute paths

  TorchSearch search;
  search.project_dir = paths.project;
  search.kbuild_root = KbuildHome();
  search.cache_file = paths.torch_cache;
  auto torch = DiscoverTorch(fs, runner, search);
  if (!torch) return report.Fail(torch.error());
  auto cuda = DiscoverCuda(runner);
  if (!cuda) return report.Fail(cuda.error());
  WarnOnCudaMismatch(report, *torch, *cuda);

  auto variant = VariantName(torch->version, torch->cuda, torch->cxx11_abi);
  if (!variant) return report.Fail(variant.error());
  auto op_namespace = NamespaceFor(fs, *config);
  if (!op_namespace) return report.Fail(op_namespace.error());

  GenerateOptions options;
  options.arch_override = flags.arch;
  options.debug = flags.debug;
  options.ccache = FindOnPath("ccache");
  options.harness_cmake = KbuildHome() / "tools" / "harness" / "harness.cmake";
  auto plan = PlanFromConfig(*config, fs, *torch, *op_namespace, paths.generated_include, options);
  if (!plan) return report.Fail(plan.error());
  auto cmake_lists = RenderCMakeLists(*plan);
  if (!cmake_lists) return report.Fail(cmake_lists.error());
  auto registration = ReadResource(fs, "registration.h");
  if (!registration) return report.Fail(registration.error());

  BuildRequest request;
  request.paths = paths;
  request.cmake_lists = *cmake_lists;
  request.registration_h = *registration;
  request.toolchain_key = {
      {"torch", TorchEnvToJson(*torch)}, {"nvcc", cuda->nvcc.string()}, {"cuda", cuda->build}};
  request.toolchain_key["torch"].erase("python");  // same torch through another python is fine
  request.toolchain_key["torch"].erase("found_by");
  request.nvcc = cuda->nvcc;
  request.target = kOpsTarget;
  request.jobs = flags.jobs;
  request.verbose = flags.verbose;
  request.progress = [&report](const std::string& line) { report.Progress(line); };
  auto outcome = RunBuild(fs, runner, request);
  if (!outcome) return report.Fail(outcome.error());
  if (outcome->wiped)
    report.Warning("build/cmake was configured for another torch/CUDA; rebuilt it");

  auto ops_template = ReadResource(fs, "_ops.py.in");
  if (!ops_template) return report.Fail(ops_template.error());
  auto compat_template = ReadResource(fs, "compat_init.py.in");
  if (!compat_template) return report.Fail(compat_template.error());
  VariantLayout layout;
  layout.variant_dir = paths.Variant(*variant);
  layout.library = paths.cmake / (*op_namespace + ".so");
  layout.package_dir = paths.project / "torch-ext" / config->PythonName();
  layout.op_namespace = *op_namespace;
  layout.python_name = config->PythonName();
  layout.ops_template = *ops_template;
  layout.compat_template = *compat_template;
  auto files = RenderVariantFiles(fs, layout);
  if (!files) return report.Fail(files.error());

  MetadataInput meta;
  meta.id = *op_namespace;
  meta.name = config->name;
  meta.version = config->version;
  meta.license = config->license;
  meta.upstream = config->upstream;
  meta.source = config->source;
  meta.python_depends = config->python_depends;
  for (const auto& cap : PlannedCapabilities(*plan)) meta.archs.push_back(BuiltArch(cap));
  meta.git = ReadGitProvenance(runner, paths.project);
  meta.builder_version = KBUILD_VERSION;
  if (Status s = WriteVariant(fs, layout.variant_dir, *files, RenderMetadataJson(meta, *files));
      !s) {
    return report.Fail(s.error());
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& other : OtherVariants(fs, paths.build, *variant)) {
    report.Progress("left alone: build/" + other + " (another torch/CUDA); current: build/" +
                    *variant);
  }
  char took[32];
  std::snprintf(took, sizeof(took), "%.1f s", seconds);
  report.Line("built build/" + *variant + " (ops: torch.ops." + *op_namespace + ") in " + took);
  report.Line("log: " + outcome->log);
  auto& data = report.data();
  data["variant"] = *variant;
  data["variant_dir"] = layout.variant_dir.string();
  data["library"] = (layout.variant_dir / layout.library.filename()).string();
  data["namespace"] = *op_namespace;
  data["archs"] = meta.archs;
  data["compiled"] = outcome->compiled;
  data["configured"] = outcome->configured;
  data["seconds"] = seconds;
  data["log"] = paths.build_log.string();
  return report.Finish();
}

}  // namespace

void AddBuildCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "build",
      "Compile the project into the Kernel Hub variant "
      "build/torch<VER>-cxx11-cu<VER>-x86_64-linux/ "
      "(loadable with kernels.get_local_kernel). Incremental: only changed files recompile.");
  auto flags = std::make_shared<BuildFlags>();
  sub->add_option("--arch", flags->arch,
                  "CUDA capabilities to compile for, replacing cuda-capabilities from build.toml "
                  "(e.g. --arch 9.0 builds sm_90a; --arch 8.0,9.0)")
      ->delimiter(',');
  sub->add_flag("--debug", flags->debug, "Device debug build: -G -O0 for CUDA, -O0 -g for C++");
  sub->add_flag("--verbose", flags->verbose,
                "Stream the full compiler commands and output to stderr");
  sub->add_option("-j,--jobs", flags->jobs, "Parallel compile jobs (default: Ninja's choice)");
  AddJsonFlag(*sub, flags->json);
  sub->footer(
      "Output: build/<variant>/ (shared library, _ops.py, the Python package, metadata.json); "
      "build/cmake/ (generated CMake project); build/logs/build.log (full compiler output).\n"
      "Exit codes: 0 built, 2 bad build.toml, 3 compile/link error (first error shown), "
      "4 no torch or nvcc.");
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunBuildCommand(global, *flags); };
  });
}

}  // namespace kb
