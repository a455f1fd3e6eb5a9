// kbuild bench: build the project's harness benchmarks (benchmarks/*.cpp),
// run them on the GPU with the measured copy bandwidth as 100%, time the
// Python peers of benchmarks/peers.py against them, print one row per case and
// the geometric means, write results/ (json, csv, md, svg), and optionally
// compare against an earlier run.
#include <chrono>
#include <memory>
#include <optional>

#include "commands/command.h"
#include "commands/harness_flags.h"
#include "core/bench_compare.h"
#include "core/bench_render.h"
#include "core/bench_results.h"
#include "core/bench_runner.h"
#include "core/bench_summary.h"
#include "core/json_fields.h"
#include "core/kbuild_home.h"
#include "core/macro_defines.h"
#include "core/metadata.h"
#include "core/peer_runner.h"
#include "core/report.h"
#include "core/results_writer.h"

namespace kb {

namespace {

struct BenchFlags {
  std::string filter;
  std::string compare;
  bool graph = false;
  int warmup = -1;  // -1 = the harness default
  int iters = -1;
  double timeout = 600;
  bool no_peers = false;
  bool no_baselines = false;
  double peers_timeout = kDefaultPeersTimeoutSeconds;
  HarnessBuildFlags build;
};

RunMetadata MetadataFor(const PreparedBuild& p, const std::string& gpu, ProcessRunner& runner) {
  RunMetadata meta;
  meta.date = IsoLocalTime();
  meta.gpu = gpu;
  meta.torch = p.torch.version;
  meta.cuda = p.cuda.version;
  meta.kbuild_version = KBUILD_VERSION;
  if (auto git = ReadGitProvenance(runner, p.paths.project)) {
    meta.git_commit = git->commit;
    meta.git_dirty = git->dirty;
  }
  meta.defines = DefineArgs(p.plan.defines);
  return meta;
}

PeerRunOptions PeerOptionsFor(const BenchFlags& flags, const HarnessBuild& built,
                              const BenchRunOptions& bench, const nlohmann::json& document,
                              const std::string& stamp, Report& report) {
  const PreparedBuild& p = built.prepared;
  PeerRunOptions o;
  o.enabled = !flags.no_peers && !flags.no_baselines;
  o.project_dir = p.paths.project;
  o.worker = PeerWorkerPath(KbuildHome());
  // torch found through KBUILD_TORCH_DIR or Torch_DIR has no interpreter: KBUILD_PYTHON names one.
  o.python = !p.torch.python.empty() ? p.torch.python
                                     : std::filesystem::path(GetEnv("KBUILD_PYTHON").value_or(""));
  o.torch_found_by = p.torch.found_by;
  o.job_file = built.target.results / ("peers-job-" + stamp + ".json");
  o.out_file = built.target.results / ("peers-" + stamp + ".json");
  o.log = bench.log;
  o.timeout_seconds = flags.peers_timeout;
  o.job.project_library = bench.project_library;
  o.job.op_namespace = p.op_namespace;
  o.job.graph = bench.graph;
  o.job.warmup = bench.warmup;
  o.job.iterations = bench.iterations;
  o.job.peak_gbps = NumberOr(ObjectAt(document, "peak"), "copy_bandwidth_gbps");
  o.job.dram_gbps = NumberOr(ObjectAt(document, "peak"), "dram_theoretical_gbps");
  o.progress = [&report](const std::string& line) { report.Progress(line); };
  return o;
}

int RunBenchCommand(const GlobalOptions& global, const BenchFlags& flags) {
  const auto start = std::chrono::steady_clock::now();
  Report report("bench", flags.build.json);
  RealFileSystem fs;
  RealProcessRunner runner;
  HarnessBuildOptions build =
      MakeHarnessBuildOptions(global, flags.build, HarnessKind::kBenchmarks, report);
  build.measure_peak = true;
  build.env_peak = GetEnv("KBUILD_PEAK_BW_GBPS");
  // The --compare baseline is read before compiling (a bad file fails fast) and before this run
  // rewrites results/ (the file is often results/latest.json).
  std::optional<BenchBaseline> baseline;
  build.before_build = [&](const PreparedBuild&) -> Status {
    if (flags.compare.empty()) return {};
    auto loaded = LoadBenchBaseline(fs, flags.compare);
    if (!loaded) return loaded.error();
    baseline = std::move(*loaded);
    return {};
  };
  auto built = BuildHarness(fs, runner, build);
  if (!built) return report.Fail(built.error());
  if (flags.build.build_only) return FinishBuildOnly(report, *built, start);
  for (const auto& warning : built->warnings) report.Warning(warning);
  const HarnessTarget& target = built->target;
  const RunGpu& gpu = built->gpu;
  if (!gpu.peak_gbps) {
    report.Warning("no measured copy bandwidth for " + gpu.gpu.name +
                   ": the harness measures it itself (run kbuild doctor to cache it)");
  }

  const std::string stamp = FileTimestamp();
  BenchRunOptions options;
  options.binary = target.binary;
  options.json_file = target.results / ("bench-" + stamp + ".json");
  options.log = target.log;
  options.project_library = target.project_library;
  if (!flags.filter.empty()) options.filter = flags.filter;
  options.graph = flags.graph;
  options.no_baselines = flags.no_baselines;
  if (flags.warmup >= 0) options.warmup = flags.warmup;
  if (flags.iters > 0) options.iterations = flags.iters;
  options.timeout_seconds = flags.timeout;
  options.env = PeakEnvironment(gpu);
  report.Progress("run " + target.binary.filename().string() + " on " + gpu.gpu.name);
  auto run = RunBenchmarks(fs, runner, options);
  if (!run) return report.Fail(run.error());
  for (const auto& w : LaunchCountWarnings(run->document, options)) report.Warning(w);
  const PeerRunOutcome peers =
      RunPeers(fs, runner, PeerOptionsFor(flags, *built, options, run->document, stamp, report),
               &run->document);
  AddBenchSummary(&run->document);
  auto table = ParseBenchDocument(run->document);
  if (!table) return report.Fail(table.error());
  // The harness only sees the environment variable kbuild passed it; say
  // where the value really came from (doctor's cache) when kbuild knows.
  if (!gpu.peak_source.empty()) table->peak_source = gpu.peak_source;

  const RunMetadata meta =
      MetadataFor(built->prepared, table->device.empty() ? gpu.gpu.name : table->device, runner);
  const auto results_dir = built->prepared.paths.project / "results";
  auto written =
      WriteResultFiles(fs, results_dir, RenderResultFiles(run->document, *table, meta, stamp));
  if (!written) return report.Fail(written.error());

  ExitCode exit = BenchExitCode(*table);
  report.Line(MetadataHeaderLine(meta));
  // The two timing modes measure different things; say which one this table is.
  report.Line(flags.graph ? "timing: CUDA-graph replays, inputs rotated over > 2x L2, no flush "
                            "(launch cost hidden; compare only with other --graph runs)"
                          : "timing: CUDA events per launch, L2 flushed before each");
  report.Line(RenderBenchTable(*table));
  if (!run->problem.empty()) {
    report.Warning(run->problem);
    exit = ExitCode::kCheckFailed;
  }
  auto& data = report.data();
  if (baseline) {
    auto compared = CompareWithBaseline(*baseline, run->document);
    if (!compared) return report.Fail(compared.error());
    report.Line("compared with " + flags.compare + ":");
    const std::string defines =
        DefinesNote(RunMetadataFromJson(ObjectAt(baseline->document, "run")), meta);
    if (!defines.empty()) report.Line(defines);
    report.Line(RenderCompareTable(*compared));
    data["compare"] = CompareToJson(*compared);
    data["compare"]["file"] = flags.compare;
    if (compared->regressions > 0) exit = ExitCode::kCheckFailed;
  }
  report.Line("results: " + (results_dir / ("bench-" + stamp + ".json")).string() +
              " (+ .csv .md .svg, and latest.*)");
  report.Line("log: " + options.log.lexically_relative(built->prepared.paths.project).string());

  data["run"] = RunMetadataToJson(meta);
  data["harness"] = run->document;
  data["failed"] = table->failed;
  data["impossible"] = table->impossible;
  data["problem"] = run->problem;
  data["peer_error"] = peers.error;
  data["results"] = nlohmann::json::array();
  for (const auto& path : *written) data["results"].push_back(path.string());
  data["log"] = options.log.string();
  return report.Finish(exit);
}

}  // namespace

void AddBenchCommand(CLI::App& app, const GlobalOptions& global, Invocation& invocation) {
  auto* sub = app.add_subcommand(
      "bench",
      "Build the harness benchmarks (benchmarks/*.cpp) and time them on the GPU: per case the "
      "median and p10-p90, GB/s, % of the measured copy bandwidth, TFLOP/s, speedup vs each "
      "baseline and vs the fastest; geometric means; host time per call; physically impossible "
      "results fail. When the project has benchmarks/peers.py, its Python peers (torch.compile, "
      "Liger, ...) are timed against the op by the same rules and shown as baselines. Writes "
      "results/.");
  auto flags = std::make_shared<BenchFlags>();
  sub->add_option("--filter", flags->filter,
                  "Run only the cases whose '<benchmark>/<case>' name matches this regular "
                  "expression (Google Benchmark's --benchmark_filter)");
  sub->add_option("--compare", flags->compare,
                  "An earlier results file (e.g. results/latest.json): print each case's change "
                  "and exit 1 on a regression beyond the measured noise");
  sub->add_flag("--graph", flags->graph,
                "Time launches captured in a CUDA graph (for launch-bound shapes)");
  sub->add_option("--warmup", flags->warmup, "Warm-up launches per case (harness default: 10)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--iters", flags->iters,
                  "Timed launches per case, exactly (harness default: 100, fewer for calls over 10 "
                  "ms: about 1 s of GPU time, at least 20)")
      ->check(kPositiveNumber);
  sub->add_option("--timeout", flags->timeout,
                  "Seconds the whole benchmark run may take before it is killed (default: 600)")
      ->check(kPositiveNumber);
  sub->add_flag("--no-peers", flags->no_peers,
                "Do not time the Python peers of benchmarks/peers.py");
  sub->add_flag("--no-baselines", flags->no_baselines,
                "Time the op alone: neither the C++ baselines of the benchmarks nor the Python "
                "peers (values are still checked against the reference); what kbuild tune and "
                "kbuild optimize run, which compare variants with each other");
  sub->add_option("--peers-timeout", flags->peers_timeout,
                  "Seconds the peer timing may take before it is killed (default: 1200)")
      ->check(kPositiveNumber);
  AddHarnessBuildFlags(*sub, flags->build, BuildOnlyFlag::kYes);
  sub->footer(
      "Output: the table, results/bench-<timestamp>.{json,csv,md,svg} and results/latest.*, "
      "build/logs/bench.log (all output), the peer job and results in "
      "build/bench-results/peers-job-<timestamp>.json and peers-<timestamp>.json.\n" +
      HarnessCompileNote("benchmarks/*.cpp") +
      "Peers: benchmarks/peers.py (format: tools/harness/python/README.md) is run after the "
      "benchmark binary by the Python that torch was found with (KBUILD_PYTHON when torch came "
      "from KBUILD_TORCH_DIR or Torch_DIR), in tools/harness/python/peer_worker.py. A peer that "
      "is not installed, incorrect or impossible is reported by name and fails nothing; our op "
      "failing its value check there fails the case.\n"
      "Environment: KBUILD_PEAK_BW_GBPS overrides the 100% line (default: the copy bandwidth "
      "kbuild doctor measured and cached in KBUILD_CACHE_DIR). The harness receives "
      "KBUILD_BENCH_JSON, KBUILD_BENCH_GRAPH, KBUILD_BENCH_WARMUP, KBUILD_BENCH_ITERS and "
      "KBUILD_BENCH_NO_BASELINES.\n"
      "Exit codes: 0 ok, 1 a case failed (incorrect, impossible, crash, timeout), the peers "
      "could not be timed (the C++ results are kept) or a regression with --compare, 2 bad usage "
      "or no benchmarks, 3 compile/link error, 4 no GPU "
      "(checked after compiling, so compile errors show on any machine), no nvcc or no torch, "
      "6 another kbuild is building this project, 130/143 stopped by Ctrl-C/SIGTERM.\n" +
      std::string(kBuildOnlyExitCodes));
  sub->callback([&invocation, flags, &global] {
    invocation.run = [flags, &global] { return RunBenchCommand(global, *flags); };
  });
}

}  // namespace kb
