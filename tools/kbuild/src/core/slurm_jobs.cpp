#include "core/slurm_jobs.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/message_text.h"
#include "core/shell_quote.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr double kSlurmCallSeconds = 60;

bool OnlyChars(const std::string& text, const std::string& extra) {
  return std::all_of(text.begin(), text.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || extra.find(c) != std::string::npos;
  });
}

Error SlurmError(const std::string& what, const ProcessResult& r) {
  if (r.not_found) {
    return MakeError(ExitCode::kEnvironment, what + ": not found on PATH",
                     "--backend slurm runs on a Slurm login node (sbatch, squeue, scancel)");
  }
  return MakeError(
      ExitCode::kEnvironment,
      what + (r.timed_out ? " timed out" : " failed (exit " + std::to_string(r.exit_code) + ")") +
          ": " + CutForMessage(OneLine(r.output)),
      "check the partition, account and time limit with sinfo and sacctmgr");
}

bool KnownRole(const std::string& role) {
  return role == "all" || role == "build" || role == "gpu";
}

}  // namespace

std::string WorkerScriptName(const std::string& role) {
  return role == "build" ? "worker-build.sbatch" : "worker.sbatch";
}

std::string WorkerJobFileName(const std::string& role) {
  return role == "build" ? "slurm-build-job.txt" : "slurm-job.txt";
}

Status CheckSlurmOptions(const SlurmOptions& o) {
  auto refuse = [](const std::string& why) {
    return Status(
        MakeError(ExitCode::kUsage, why, "see kbuild optimize --help or kbuild tune --help"));
  };
  if (o.tasks < 1 || o.tasks > 10000) return refuse("--jobs must be 1-10000");
  // The build array's partition and time come from --build-partition and --build-time.
  const bool build = o.role == "build";
  if (!OnlyChars(o.partition, "_.-")) {
    return refuse(std::string(build ? "--build-partition" : "--partition") +
                  ": letters, digits, _ . - only");
  }
  if (!OnlyChars(o.account, "_.-")) return refuse("--account: letters, digits, _ . - only");
  const bool time_ok = std::all_of(o.time_limit.begin(), o.time_limit.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == ':' || c == '-';
  });
  if (!time_ok) {
    return refuse(std::string(build ? "--build-time" : "--slurm-time") +
                  ": Slurm's time format (e.g. 2:00:00 or 1-00:00:00)");
  }
  if (!KnownRole(o.role)) return refuse("worker role: all, build or gpu");
  if ((o.gres.empty() && o.role != "build") || !OnlyChars(o.gres, ":_.-")) {
    return refuse("gres: letters, digits, : _ . -");
  }
  return {};
}

std::string WorkerBatchScript(const fs::path& kbuild_exe, const fs::path& queue_dir,
                              const std::string& role) {
  return "#!/bin/sh\n"
         "# One kbuild queue worker per array task (written by kbuild optimize or tune).\n"
         "exec " +
         ShellWord(kbuild_exe.string()) + " worker --queue " + ShellWord(queue_dir.string()) +
         (role == "all" ? "" : " --role " + ShellWord(role)) +
         " --name \"slurm-${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}-${SLURM_ARRAY_TASK_ID:-0}\"\n";
}

std::vector<std::string> SbatchArgv(const SlurmOptions& o, const fs::path& queue_dir) {
  std::vector<std::string> argv = {"sbatch", "--parsable",
                                   o.role == "all" ? std::string("--job-name=kbuild-worker")
                                                   : "--job-name=kbuild-" + o.role + "-worker",
                                   "--array=0-" + std::to_string(o.tasks - 1)};
  if (!o.gres.empty()) argv.push_back("--gres=" + o.gres);
  argv.push_back("--output=" + (queue_dir / "slurm" / "%A_%a.out").string());
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.account.empty()) argv.push_back("--account=" + o.account);
  if (!o.time_limit.empty()) argv.push_back("--time=" + o.time_limit);
  argv.push_back((queue_dir / WorkerScriptName(o.role)).string());
  return argv;
}

Expected<std::string> SubmitWorkerArray(FileSystem& fs, ProcessRunner& runner,
                                        const SlurmOptions& options, const fs::path& kbuild_exe,
                                        const fs::path& queue_dir) {
  if (Status ok = CheckSlurmOptions(options); !ok) return ok.error();
  if (Status s = fs.MakeDirectories(queue_dir / "slurm"); !s) return s.error();
  if (Status s = fs.Write(queue_dir / WorkerScriptName(options.role),
                          WorkerBatchScript(kbuild_exe, queue_dir, options.role));
      !s) {
    return s.error();
  }
  RunOptions run;
  run.timeout_seconds = kSlurmCallSeconds;
  const ProcessResult r = runner.Run(SbatchArgv(options, queue_dir), run);
  if (r.not_found || r.timed_out || r.exit_code != 0) return SlurmError("sbatch", r);
  // --parsable prints "<job id>" or "<job id>;<cluster>".
  std::string id = r.output.substr(0, r.output.find_first_of(";\r\n"));
  id.erase(0, id.find_first_not_of(" \t"));
  id.erase(id.find_last_not_of(" \t") + 1);
  if (id.empty() || !OnlyChars(id, "_")) {
    return MakeError(ExitCode::kEnvironment, "sbatch printed no job id: " + CutForMessage(id),
                     "run the sbatch command by hand to see what it says");
  }
  return id;
}

Expected<SlurmArrayState> QueryWorkerArray(ProcessRunner& runner, const std::string& job_id) {
  RunOptions run;
  run.timeout_seconds = kSlurmCallSeconds;
  const ProcessResult r = runner.Run({"squeue", "-h", "-r", "-j", job_id, "-o", "%T"}, run);
  SlurmArrayState state;
  // A job that has left the system entirely is no error: none of its tasks waits or runs.
  if (r.exit_code != 0 && r.output.find("Invalid job id") != std::string::npos) return state;
  if (r.not_found || r.timed_out || r.exit_code != 0) return SlurmError("squeue", r);
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    line = OneLine(line);
    if (line == "RUNNING" || line == "COMPLETING") {
      ++state.running;
    } else if (!line.empty()) {
      ++state.pending;
    }
  }
  return state;
}

Status CancelWorkerArray(ProcessRunner& runner, const std::string& job_id) {
  RunOptions run;
  run.timeout_seconds = kSlurmCallSeconds;
  const ProcessResult r = runner.Run({"scancel", job_id}, run);
  if (r.not_found || r.timed_out || r.exit_code != 0) return SlurmError("scancel", r);
  return {};
}

}  // namespace kb
