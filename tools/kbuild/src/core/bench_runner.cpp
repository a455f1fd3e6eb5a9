#include "core/bench_runner.h"

#include "core/json_fields.h"
#include "core/process_outcome.h"

namespace kb {

std::vector<std::string> BenchCommand(const BenchRunOptions& o) {
  std::vector<std::string> argv = {o.binary.string(), "--benchmark_color=false"};
  if (o.filter) argv.push_back("--benchmark_filter=" + *o.filter);
  return argv;
}

std::map<std::string, std::string> BenchEnvironment(const BenchRunOptions& o) {
  std::map<std::string, std::string> env = o.env;
  env["KBUILD_BENCH_JSON"] = o.json_file.string();
  if (!o.project_library.empty()) env["KBUILD_PROJECT_LIBRARY"] = o.project_library.string();
  if (o.graph) env["KBUILD_BENCH_GRAPH"] = "1";
  if (o.no_baselines) env["KBUILD_BENCH_NO_BASELINES"] = "1";
  if (o.warmup) env["KBUILD_BENCH_WARMUP"] = std::to_string(*o.warmup);
  if (o.iterations) env["KBUILD_BENCH_ITERS"] = std::to_string(*o.iterations);
  return env;
}

Expected<BenchRunOutcome> RunBenchmarks(FileSystem& fs, ProcessRunner& runner,
                                        const BenchRunOptions& o) {
  // A document left by an earlier run must not pass for this run's.
  if (Status s = fs.Remove(o.json_file); !s) return s.error();
  // The harness writes the JSON itself (temp file + rename): its folder must exist.
  if (Status s = fs.MakeDirectories(o.json_file.parent_path()); !s) return s.error();
  if (Status s = fs.Write(o.log, ""); !s) return s.error();
  RunOptions run;
  run.env = BenchEnvironment(o);
  run.log = o.log;
  run.timeout_seconds = o.timeout_seconds;
  const ProcessResult p = runner.Run(BenchCommand(o), run);
  if (p.log_error) return *p.log_error;
  if (p.not_found) {
    return MakeError(ExitCode::kBuildError, "cannot run " + o.binary.string(),
                     "rebuild with kbuild bench (it builds the kbuild_benchmarks target)");
  }
  const std::string abnormal = AbnormalEnd(p, o.timeout_seconds);
  if (abnormal.empty() && p.exit_code == 2) {
    Error e = MakeError(ExitCode::kUsage, "the benchmark binary rejected its arguments",
                        "check --filter: it is a regular expression over "
                        "'<benchmark>/<case>' names");
    e.detail = OutputTail(p.output, 5);
    return e;
  }
  auto text = fs.ReadAtMost(o.json_file, kMaxResultsBytes);
  const auto doc = text ? ParseUntrustedJson(*text) : nlohmann::json();
  if (!doc.is_object()) {
    Error e = MakeError(
        ExitCode::kCheckFailed,
        "the benchmark binary " +
            (abnormal.empty() ? "exited with code " + std::to_string(p.exit_code) : abnormal) +
            " before writing any result",
        "the output's last lines are above; the full output is in " + o.log.string() +
            (p.timed_out ? "; raise the limit with --timeout" : ""));
    e.detail = OutputTail(p.output, 8);
    return e;
  }
  BenchRunOutcome outcome;
  outcome.document = doc;
  if (!abnormal.empty()) {
    outcome.problem = "the benchmark binary " + abnormal + "; only the cases before it are " +
                      "shown\n" + OutputTail(p.output, 5);
  }
  return outcome;
}

std::vector<std::string> LaunchCountWarnings(const nlohmann::json& document,
                                             const BenchRunOptions& o) {
  std::vector<std::string> warnings;
  if (!document.contains("cases") || !document["cases"].is_array()) return warnings;
  // One warning per setting: the first case that did not use the asked count.
  auto check = [&](const std::optional<int>& asked, const char* key, const std::string& flag,
                   const std::string& what, const char* env) {
    if (!asked) return;
    for (const auto& c : document["cases"]) {
      const double ran = NumberOr(c, key, *asked);
      if (ran == *asked) continue;
      warnings.push_back("asked for " + flag + " " + std::to_string(*asked) + " but the harness " +
                         what + " " + std::to_string(static_cast<long long>(ran)) +
                         " (it does not read " + env + ")");
      return;
    }
  };
  check(o.warmup, "warmup", "--warmup", "ran warm-up launches:", "KBUILD_BENCH_WARMUP");
  check(o.iterations, "iterations", "--iters", "timed launches:", "KBUILD_BENCH_ITERS");
  return warnings;
}

}  // namespace kb
