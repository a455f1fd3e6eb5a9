#include "core/profile_runner.h"

#include "core/kernel_names.h"
#include "core/message_text.h"
#include "core/ncu_report.h"
#include "core/process_outcome.h"

namespace kb {

namespace {

constexpr double kCuobjdumpTimeoutSeconds = 120;

// One cuobjdump call; its output, or the problem.
Expected<std::string> Cuobjdump(ProcessRunner& runner, const ProfileRunOptions& o,
                                const char* flag) {
  RunOptions run;
  run.timeout_seconds = kCuobjdumpTimeoutSeconds;
  // cuobjdump -sass runs nvdisasm, found on PATH or NVDISASM_PATH: the wheels
  // (ncu_command.h) put both in one bin/ that is not on PATH.
  run.env["NVDISASM_PATH"] = o.cuobjdump.parent_path().string();
  const ProcessResult r = runner.Run({o.cuobjdump.string(), flag, o.project_library.string()}, run);
  if (r.not_found || r.exit_code != 0) {
    Error e = MakeError(ExitCode::kEnvironment, "cuobjdump " + std::string(flag) + " failed on " +
                                                    o.project_library.string() + ": " +
                                                    OneLine(OutputTail(r.output, 1)));
    return e;
  }
  return r.output;
}

void ReadSass(FileSystem& fs, ProcessRunner& runner, const ProfileRunOptions& o,
              ProfileOutcome& out) {
  if (o.cuobjdump.empty()) {
    out.sass_problem =
        "cuobjdump not found (the CUDA Toolkit's bin/, or pip install nvidia-cuda-cuobjdump "
        "nvidia-cuda-nvdisasm into torch's environment)";
    return;
  }
  if (!fs.Exists(o.project_library)) {
    out.sass_problem = "no project library at " + o.project_library.string();
    return;
  }
  auto sass = Cuobjdump(runner, o, "-sass");
  if (!sass) {
    out.sass_problem = sass.error().message;
    return;
  }
  out.sass = ParseCuobjdumpSass(*sass);
  if (auto usage = Cuobjdump(runner, o, "-res-usage")) AddResourceUsage(*usage, out.sass);
  if (out.sass.empty()) out.sass_problem = "cuobjdump found no kernels in the project library";
}

void RunNcu(FileSystem& fs, ProcessRunner& runner, ProfileRunOptions& o, ProfileOutcome& out) {
  if (!o.request.kernel_regex) {
    for (const SassFunction& f : out.sass) o.request.project_kernels.push_back(f.mangled);
  }
  out.ncu_command = NcuCommand(o.request);
  if (Status s = fs.Write(o.log, ""); !s) {
    out.ncu_problem = s.error().message;
    return;
  }
  RunOptions run;
  run.env = o.env;
  run.log = o.log;
  run.timeout_seconds = o.timeout_seconds;
  const ProcessResult p = runner.Run(out.ncu_command, run);
  if (p.not_found) {
    out.ncu_problem = "cannot run " + o.request.ncu.string();
    out.ncu_hint = "point KBUILD_NCU at a working ncu";
    return;
  }
  if (Status s = fs.Write(o.csv, p.output); !s) {
    out.ncu_problem = s.error().message;
    return;
  }
  if (p.timed_out || p.interrupted) {
    out.ncu_problem = "ncu " + AbnormalEnd(p, o.timeout_seconds);
    out.ncu_hint = "raise --timeout, or profile fewer launches (--launch-count)";
    return;
  }
  auto report = ParseNcuCsv(p.output);
  if (!report) {
    out.ncu_problem = report.error().message;
    out.ncu_hint = report.error().hint + "; ncu's output: " + o.csv.string();
    return;
  }
  for (const NcuKernel& kernel : report->kernels) {
    if (IsHarnessKernel(kernel.name)) {
      ++out.harness_kernels_skipped;
      continue;
    }
    ProfiledKernel k;
    k.summary = SummarizeKernel(kernel, o.context);
    if (const SassFunction* f = MatchSass(k.summary, out.sass)) k.sass = *f;
    out.kernels.push_back(std::move(k));
  }
  if (out.kernels.empty()) {
    out.ncu_problem = "ncu profiled only the harness's own kernels";
    out.ncu_hint = "pass --kernel REGEX naming your kernel";
    return;
  }
  out.ncu_ran = true;
}

}  // namespace

const SassFunction* MatchSass(const ProfileSummary& summary,
                              const std::vector<SassFunction>& sass) {
  for (const SassFunction& f : sass) {
    if (SameKernel(summary.ncu_name, f.mangled)) return &f;
  }
  return nullptr;
}

std::string NcuUnavailableHint(NcuUnavailable why) {
  switch (why) {
    case NcuUnavailable::kNoGpu:
      return "ncu profiles on a GPU: run kbuild profile where nvidia-smi lists one (the SASS "
             "check below needs none)";
    case NcuUnavailable::kNotFound:
      break;
  }
  return "install Nsight Compute (it ships with the CUDA Toolkit) or point KBUILD_NCU at ncu";
}

Expected<ProfileOutcome> RunProfile(FileSystem& fs, ProcessRunner& runner,
                                    ProfileRunOptions options) {
  ProfileOutcome out;
  ReadSass(fs, runner, options, out);
  if (options.ncu) {
    options.request.ncu = options.ncu->path;
    RunNcu(fs, runner, options, out);
  } else {
    out.ncu_problem = options.ncu_problem;
    out.ncu_hint = NcuUnavailableHint(options.ncu_unavailable);
  }
  if (!out.ncu_ran && out.sass.empty()) {
    return MakeError(
        ExitCode::kEnvironment,
        "nothing to profile with: " + out.ncu_problem + "; and " + out.sass_problem,
        out.ncu_hint.empty() ? "install the CUDA Toolkit's ncu and cuobjdump" : out.ncu_hint);
  }
  return out;
}

}  // namespace kb
