// kbuild build: build.toml -> generated CMake/Ninja project -> Kernel Hub
// variant build/<variant>/ loadable by kernels.get_local_kernel.
#include <chrono>
#include <cstdio>
#include <memory>

#include "commands/command.h"
#include "core/build_pipeline.h"
#include "core/hub_layout.h"
#include "core/metadata.h"
#include "core/paths.h"
#include "core/report.h"
#include "core/variant.h"

namespace kb {

namespace {

namespace fs = std::filesystem;

struct BuildFlags {
  std::vector<std::string> arch;
  std::vector<std::string> defines;
  bool debug = false;
  bool verbose = false;
  bool json = false;
  int jobs = 0;
};

int RunBuildCommand(const GlobalOptions& global, const BuildFlags& flags) {
  const auto start = std::chrono::steady_clock::now();
  Report report("build", flags.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  PipelineOptions pipeline;
  pipeline.project_dir = global.project_dir;
  pipeline.arch = flags.arch;
  pipeline.debug = flags.debug;
  pipeline.defines = flags.defines;
  auto prepared = PrepareBuild(fs, runner, pipeline);
  if (!prepared) return report.Fail(prepared.error());
  for (const auto& warning : prepared->warnings) report.Warning(warning);
  const BuildPaths& paths = prepared->paths;
  const ProjectConfig& config = prepared->config;
  const std::string& variant = prepared->variant;
  const std::string& op_namespace = prepared->op_namespace;

  TargetBuild target;
  target.target = kOpsTarget;
  target.jobs = flags.jobs;
  target.verbose = flags.verbose;
  target.progress = [&report](const std::string& line) { report.Progress(line); };
  auto outcome = BuildTarget(fs, runner, *prepared, target);
  if (!outcome) return report.Fail(outcome.error());
  if (!outcome->wipe_reason.empty()) report.Warning(outcome->wipe_reason + "; rebuilt it");

  auto ops_template = ReadResource(fs, "_ops.py.in");
  if (!ops_template) return report.Fail(ops_template.error());
  auto compat_template = ReadResource(fs, "compat_init.py.in");
  if (!compat_template) return report.Fail(compat_template.error());
  VariantLayout layout;
  layout.variant_dir = paths.Variant(variant);
  layout.library = paths.cmake / (op_namespace + ".so");
  layout.package_dir = paths.project / "torch-ext" / config.PythonName();
  layout.op_namespace = op_namespace;
  layout.python_name = config.PythonName();
  layout.ops_template = *ops_template;
  layout.compat_template = *compat_template;
  auto files = RenderVariantFiles(fs, layout);
  if (!files) return report.Fail(files.error());

  MetadataInput meta;
  meta.id = op_namespace;
  meta.name = config.name;
  meta.version = config.version;
  meta.license = config.license;
  meta.upstream = config.upstream;
  meta.source = config.source;
  meta.python_depends = config.python_depends;
  for (const auto& cap : PlannedCapabilities(prepared->plan)) meta.archs.push_back(BuiltArch(cap));
  meta.git = ReadGitProvenance(runner, paths.project);
  meta.builder_version = KBUILD_VERSION;
  if (Status s = WriteVariant(fs, layout.variant_dir, *files, RenderMetadataJson(meta, *files));
      !s) {
    return report.Fail(s.error());
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& other : OtherVariants(fs, paths.build, variant)) {
    report.Progress("left alone: build/" + other + " (another torch/CUDA); current: build/" +
                    variant);
  }
  char took[32];
  std::snprintf(took, sizeof(took), "%.1f s", seconds);
  report.Line("built build/" + variant + " (ops: torch.ops." + op_namespace + ") in " + took);
  report.Line("log: " + outcome->log);
  auto& data = report.data();
  data["variant"] = variant;
  data["variant_dir"] = layout.variant_dir.string();
  data["library"] = (layout.variant_dir / layout.library.filename()).string();
  data["namespace"] = op_namespace;
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
  AddDefineOption(*sub, flags->defines);
  sub->add_flag("--debug", flags->debug, "Device debug build: -G -O0 for CUDA, -O0 -g for C++");
  sub->add_flag("--verbose", flags->verbose,
                "Stream the full compiler commands and output to stderr");
  sub->add_option("-j,--jobs", flags->jobs, "Parallel compile jobs (default: Ninja's choice)");
  AddJsonFlag(*sub, flags->json);
  sub->footer(
      "Output: build/<variant>/ (shared library, _ops.py, the Python package, metadata.json); "
      "build/cmake/ (generated CMake project); build/logs/build.log (full compiler output).\n"
      "Exit codes: 0 built, 2 bad build.toml or a build/ that is or holds a symbolic link, 3 "
      "compile/link error (first error shown), "
      "4 no torch or nvcc, 6 another kbuild is building this project (build/.kbuild.lock), "
      "130/143 stopped by Ctrl-C/SIGTERM.");
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunBuildCommand(global, *flags); };
  });
}

}  // namespace kb
