// kbuild profile: build the benchmarks like kbuild bench, run Nsight Compute
// on one benchmark case (the project's kernels only, one launch after warm-up)
// and print per kernel what limits it and why, with the SASS check of its
// global access widths and local memory. Without ncu, without a GPU or without
// counter permission it says so and shows what the SASS alone tells.
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/harness_flags.h"
#include "core/bench_runner.h"
#include "core/ncu_command.h"
#include "core/profile_cases.h"
#include "core/profile_render.h"
#include "core/profile_runner.h"
#include "core/report.h"

namespace kb {

namespace {

struct ProfileFlags {
  std::string case_name;
  std::string metric_set = "default";
  std::string kernel;
  int launch_skip = 3;
  int launch_count = 1;
  double timeout = 600;
  bool list = false;
  HarnessBuildFlags build;
};

std::string Relative(const std::filesystem::path& p, const std::filesystem::path& project) {
  return p.lexically_relative(project).string();
}

void RenderOutcome(Report& report, const ProfileOutcome& out, const std::string& case_name,
                   const std::filesystem::path& project) {
  for (const ProfiledKernel& k : out.kernels) {
    std::string text = RenderProfileSummary(k.summary);
    if (k.sass) {
      text += "sass        " + SassCheckLine(*k.sass) + "\n";
      for (const std::string& finding : SassFindings(*k.sass))
        text += "            " + finding + "\n";
    } else {
      text += "sass        ? (" +
              (out.sass_problem.empty() ? "no project kernel has ncu's name for it"
                                        : out.sass_problem) +
              ")\n";
    }
    report.Line(text);
  }
  if (out.ncu_ran) return;
  // No counters: every kernel of the project library from its SASS.
  report.Line("no ncu counters for '" + case_name + "': " + out.ncu_problem);
  if (!out.ncu_hint.empty()) report.Line("hint: " + out.ncu_hint);
  report.Line("what the SASS shows (static; registers, stack and shared from ptxas):");
  for (const SassFunction& f : out.sass) {
    report.Line("  " + f.name + "\n    " + SassCheckLine(f));
    for (const std::string& finding : SassFindings(f)) report.Line("    " + finding);
  }
  (void)project;
}

int RunProfileCommand(const GlobalOptions& global, const ProfileFlags& flags) {
  Report report("profile", flags.build.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  HarnessBuildOptions build =
      MakeHarnessBuildOptions(global, flags.build, HarnessKind::kBenchmarks, report);
  build.env_peak = GetEnv("KBUILD_PEAK_BW_GBPS");
  // Kept from before the GPU check: without a GPU the compiled library still has its SASS.
  std::optional<PreparedBuild> prepared;
  build.before_build = [&prepared](const PreparedBuild& p) -> Status {
    prepared = p;
    return {};
  };
  auto built = BuildHarness(fs, runner, build);
  const bool no_gpu = !built && built.error().code == ExitCode::kEnvironment && prepared;
  if (!built && !no_gpu) return report.Fail(built.error());
  if (built) {
    for (const auto& warning : built->warnings) report.Warning(warning);
  }
  const PreparedBuild& p = built ? built->prepared : *prepared;
  auto target = FindHarnessTarget(p.plan, p.paths, HarnessKind::kBenchmarks);
  if (!target) return report.Fail(target.error());

  BenchRunOptions bench;  // the environment kbuild bench gives the binary
  bench.binary = target->binary;
  bench.project_library = target->project_library;
  bench.json_file = target->results / "profile-bench.json";
  bench.warmup = flags.launch_skip + 1;
  bench.iterations = flags.launch_count + 2;
  if (built) bench.env = PeakEnvironment(built->gpu);
  const auto env = BenchEnvironment(bench);
  if (Status s = fs.MakeDirectories(target->results); !s) return report.Fail(s.error());

  auto cases = ListBenchmarkCases(runner, target->binary, env);
  if (!cases) return report.Fail(cases.error());
  if (flags.list) {
    for (const std::string& name : *cases)
      report.Line(name + (IsPerformanceCase(name) ? "" : "  (not timed)"));
    report.data()["cases"] = *cases;
    return report.Finish();
  }
  auto chosen = ChooseCase(
      *cases, flags.case_name.empty() ? std::nullopt : std::optional<std::string>(flags.case_name));
  if (!chosen) return report.Fail(chosen.error());
  if (chosen->chosen_by != "--case") {
    report.Line("no --case: profiling '" + chosen->name + "', the first performance case of " +
                std::to_string(cases->size()) + " (kbuild profile --list shows them)");
  }

  ProfileRunOptions o;
  const NcuDiscovery ncu = FindNcu();
  if (no_gpu) {
    o.ncu_problem = "no GPU: " + built.error().message;
    o.ncu_unavailable = NcuUnavailable::kNoGpu;
  } else if (!ncu.ncu) {
    o.ncu_problem = ncu.problem;
  } else {
    o.ncu = ncu.ncu;
  }
  o.cuobjdump = FindCuobjdump(p.cuda.root / "bin", p.torch.torch_dir,
                              p.torch.cuda.substr(0, p.torch.cuda.find('.')));
  o.project_library = target->project_library;
  o.request.binary = target->binary;
  o.request.case_filter = CaseFilterRegex(chosen->name);
  o.request.metric_set = flags.metric_set;
  if (!flags.kernel.empty()) o.request.kernel_regex = flags.kernel;
  o.request.launch_skip = flags.launch_skip;
  o.request.launch_count = flags.launch_count;
  o.env = env;
  const auto project = p.paths.project;
  o.csv = project / "build" / "profile" / (CaseFileStem(chosen->name) + ".csv");
  o.log = project / "build" / "logs" / "profile.log";
  o.timeout_seconds = flags.timeout;
  if (built) o.context.peak_dram_gbps = built->gpu.peak_gbps;
  if (o.ncu) report.Progress("run ncu on '" + chosen->name + "' (" + o.ncu->path.string() + ")");
  auto out = RunProfile(fs, runner, o);
  if (!out) return report.Fail(out.error());
  if (!out->ncu_ran) report.Warning("no ncu counters: " + out->ncu_problem);
  if (!out->sass_problem.empty()) report.Warning("no SASS check: " + out->sass_problem);

  RenderOutcome(report, *out, chosen->name, project);
  if (!out->ncu_command.empty()) {
    report.Line("ncu report: " + Relative(o.csv, project) + "\nlog: " + Relative(o.log, project));
  }

  auto& data = report.data();
  data["case"] = chosen->name;
  data["case_chosen_by"] = chosen->chosen_by;
  data["metric_set"] = flags.metric_set;
  data["ncu"] = {{"ran", out->ncu_ran},
                 {"path", o.ncu ? o.ncu->path.string() : ""},
                 {"found_by", o.ncu ? o.ncu->found_by : ""},
                 {"problem", out->ncu_problem},
                 {"hint", out->ncu_hint},
                 {"command", out->ncu_command},
                 {"csv", out->ncu_command.empty() ? "" : o.csv.string()},
                 {"log", out->ncu_command.empty() ? "" : o.log.string()},
                 {"harness_kernels_skipped", out->harness_kernels_skipped}};
  data["kernels"] = nlohmann::json::array();
  for (const ProfiledKernel& k : out->kernels) {
    nlohmann::json kernel = ProfileSummaryJson(k.summary);
    kernel["sass"] = k.sass ? SassFunctionJson(*k.sass) : nlohmann::json(nullptr);
    data["kernels"].push_back(kernel);
  }
  data["sass"] = nlohmann::json::array();
  for (const SassFunction& f : out->sass) data["sass"].push_back(SassFunctionJson(f));
  data["sass_problem"] = out->sass_problem;
  return report.Finish();
}

}  // namespace

void AddProfileCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "profile",
      "Run Nsight Compute (ncu) on one benchmark case and summarize each of the project's "
      "kernels it launches: time; DRAM GB/s and % of peak; SM % of peak; achieved and "
      "theoretical occupancy and the limiter; registers, shared memory and local-memory "
      "(spill) traffic; L1/L2 hit rates; how much of each fetched sector global loads and "
      "stores use; the top warp stall reasons; a verdict (memory-bound near peak, memory-bound "
      "far from peak and why, latency-bound, compute-bound) naming the causes; and the SASS "
      "check (global load/store widths, 16-byte vectors split into element loads, LDL/STL "
      "local-memory instructions, ptxas resource usage). Without ncu, a GPU or counter "
      "permission it says so and prints the SASS check of every project kernel.");
  auto flags = std::make_shared<ProfileFlags>();
  sub->add_option("--case", flags->case_name,
                  "The benchmark case, '<benchmark>/<case>' as kbuild bench prints it (or the "
                  "'<case>' part when one benchmark has it); default: the first performance case");
  sub->add_option("--metrics", flags->metric_set,
                  "Metric set: 'default' (the sections the summary reads) or 'full' (ncu's "
                  "--set full: slower, every section in the CSV)")
      ->check(
          CLI::IsMember(std::vector<std::string>(std::begin(kMetricSets), std::end(kMetricSets))));
  sub->add_option("--kernel", flags->kernel,
                  "Profile the kernels whose function name matches this regular expression "
                  "(default: every kernel of the project library, found in its SASS)");
  sub->add_option("--launch-skip", flags->launch_skip,
                  "Matching kernel launches to skip before profiling (default: 3: after the "
                  "value check and warm-up)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--launch-count", flags->launch_count,
                  "Matching kernel launches to profile (default: 1; an op that launches two "
                  "kernels per call needs 2)")
      ->check(kPositiveNumber);
  sub->add_option("--timeout", flags->timeout,
                  "Seconds ncu may take before it is killed (default: 600)")
      ->check(kPositiveNumber);
  sub->add_flag("--list", flags->list, "Print the benchmark cases and exit");
  AddHarnessBuildFlags(*sub, flags->build);
  sub->footer(
      "Output: per profiled kernel the fields above, the verdict and the SASS line; ncu's whole "
      "output in build/profile/<case>.csv and the run's log in build/logs/profile.log.\n"
      "ncu runs as: ncu --csv --page details --print-units base --clock-control none "
      "--target-processes all --section ... --metrics ... --print-kernel-base mangled "
      "--kernel-name-base mangled "
      "--kernel-name regex:^(<the project's kernels>)$ --launch-skip 3 --launch-count 1 "
      "build/cmake/kbuild_benchmarks --benchmark_filter=^<case>(/|$).\n"
      "Environment: KBUILD_NCU names ncu (else ncu on PATH, $CUDA_HOME/bin/ncu, "
      "/usr/local/cuda/bin/ncu); cuobjdump comes from the CUDA Toolkit kbuild builds with, else "
      "PATH, else the wheels beside torch (pip install nvidia-cuda-cuobjdump "
      "nvidia-cuda-nvdisasm). KBUILD_PEAK_BW_GBPS or kbuild doctor's cache gives the measured copy "
      "bandwidth "
      "the DRAM GB/s is compared with.\n"
      "Counters: ncu needs permission to read GPU performance counters (ERR_NVGPUCTRPERM "
      "otherwise): run as root, or set NVreg_RestrictProfilingToAdminUsers=0 for the nvidia "
      "module.\n"
      "Exit codes: 0 a summary was printed (from ncu, or from the SASS alone with a warning "
      "saying why), 2 bad usage or an unknown --case (with the nearest name), 3 compile/link "
      "error, 4 neither ncu nor cuobjdump could be run (or no nvcc or torch), 6 another kbuild "
      "is building this project.");
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunProfileCommand(global, *flags); };
  });
}

}  // namespace kb
