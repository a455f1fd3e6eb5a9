// kbuild doctor: is this machine ready to build, test and benchmark kernels?
#include <cstdio>
#include <memory>

#include "commands/command.h"
#include "core/doctor_checks.h"
#include "core/kbuild_home.h"
#include "core/paths.h"
#include "core/report.h"

namespace kb {

namespace {

struct DoctorFlags {
  bool json = false;
  bool no_bench = false;
  bool require_gpu = false;
};

int RunDoctorCommand(const GlobalOptions& global, const DoctorFlags& flags) {
  Report report("doctor", flags.json);
  RealFileSystem fs;
  RealProcessRunner runner;

  DoctorOptions options;
  options.bench = !flags.no_bench;
  options.require_gpu = flags.require_gpu;
  auto cache = CacheDir();
  if (!cache) return report.Fail(cache.error());
  options.cache_dir = *cache;
  auto probe = fs.Read(ResourcePath("gpu_probe.cu"));
  if (!probe) {
    Error e = probe.error();
    e.message = "cannot read kbuild resource 'gpu_probe.cu'";
    e.hint = DataFolderHint("tools/kbuild/resources");
    return report.Fail(e);
  }
  options.probe_source = *probe;
  const BuildPaths paths = MakeBuildPaths(global.project_dir);
  options.torch_search.project_dir = paths.project;
  const KbuildHomeChoice home = ChooseKbuildHome();
  options.torch_search.kbuild_root = home.path;
  // Inside a project, share kbuild build's torch cache; elsewhere write nothing, and nothing
  // through a build/ planted as a link (kbuild build refuses that folder too).
  const FileKind build_kind = fs.KindOf(paths.build);
  if (fs.Exists(paths.project / "build.toml") &&
      (build_kind == FileKind::kDirectory || build_kind == FileKind::kMissing)) {
    options.torch_search.cache_file = paths.torch_cache;
  }

  const DoctorResult result = RunDoctor(fs, runner, options);
  report.Line("  kbuild data: " + home.path.string() + " (" + home.found_by + ")");
  std::vector<std::string> problems;
  nlohmann::json checks = nlohmann::json::array();
  for (const DoctorCheck& c : result.checks) {
    char line[64];
    std::snprintf(line, sizeof(line), "  %-8s %-11s ", CheckLevelName(c.level), c.name.c_str());
    report.Line(line + c.summary);
    if (!c.hint.empty()) report.Line("                       hint: " + c.hint);
    checks.push_back({{"name", c.name},
                      {"level", CheckLevelName(c.level)},
                      {"summary", c.summary},
                      {"hint", c.hint}});
    if (c.level == CheckLevel::kProblem) problems.push_back(c.name);
  }
  report.data() = result.data;
  report.data()["checks"] = checks;
  report.data()["cache_dir"] = options.cache_dir.string();
  report.data()["kbuild_home"] = {{"path", home.path.string()}, {"found_by", home.found_by}};
  if (result.exit != ExitCode::kOk) {
    std::string names;
    for (const auto& p : problems) names += (names.empty() ? "" : ", ") + p;
    return report.Fail(MakeError(result.exit, "this machine is not ready: " + names,
                                 "fix the problems listed above (each has a hint), then run "
                                 "kbuild doctor again"));
  }
  report.Line("ready to build");
  return report.Finish();
}

}  // namespace

void AddDoctorCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "doctor",
      "Check this machine: GPU(s) and their measured copy bandwidth, driver, nvcc, torch, "
      "cmake, ninja, ccache; each problem with a hint");
  auto flags = std::make_shared<DoctorFlags>();
  sub->add_flag("--no-bench", flags->no_bench,
                "Do not measure device-to-device copy bandwidth (otherwise measured once per GPU "
                "and cached in KBUILD_CACHE_DIR/gpu-<uuid>.json)");
  sub->add_flag("--require-gpu", flags->require_gpu, "Exit 4 when no GPU is usable");
  AddJsonFlag(*sub, flags->json);
  sub->footer(
      "Exit codes: 0 ready (no GPU is fine unless --require-gpu), 4 missing nvcc, torch, cmake or "
      "ninja, a CPU-only torch, or no GPU with --require-gpu.");
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunDoctorCommand(global, *flags); };
  });
}

}  // namespace kb
