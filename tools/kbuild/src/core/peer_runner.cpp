#include "core/peer_runner.h"

#include "core/kbuild_home.h"
#include "core/message_text.h"
#include "core/peer_results.h"
#include "core/process_outcome.h"
#include "core/report.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kProgressPrefix = "peers: ";

// The worker's one-line reason: the last line it printed.
std::string LastLine(const std::string& output) {
  std::string tail = OutputTail(output, 1);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail.empty() ? "no output" : OneLine(tail);
}

// Why the project's peers.py cannot be handed to Python, or "" when it can.
std::string UnusablePeersFile(const FileSystem& fs, const fs::path& file) {
  const FileKind kind = fs.KindOf(file);
  if (kind != FileKind::kRegular) return NotRegularFileError(file, kind).Located();
  if (auto text = fs.ReadAtMost(file, kMaxPeersFileBytes); !text) return text.error().Located();
  return "";
}

// Why the worker cannot be started, or "" when it can.
std::string UnrunnableWorker(const FileSystem& fs, const PeerRunOptions& o) {
  if (o.python.empty()) {
    return "no Python to run the peers with: torch was found through " + o.torch_found_by +
           "; set KBUILD_PYTHON to the python3 that has torch (or pass --no-peers)";
  }
  if (fs.KindOf(o.worker) != FileKind::kRegular) {
    return "the peer worker " + o.worker.string() +
           " is missing: " + DataFolderHint("tools/harness/python");
  }
  return "";
}

// How the worker ended when that was not a clean exit 0, or "".
std::string WorkerFailure(const ProcessResult& p, const PeerRunOptions& o) {
  if (p.log_error) return p.log_error->Located();
  if (p.not_found) return "cannot run " + o.python.string();
  if (p.timed_out) {
    return AbnormalEnd(p, o.timeout_seconds) +
           " (raise the limit with --peers-timeout); last output: " + LastLine(p.output);
  }
  if (const std::string abnormal = AbnormalEnd(p, o.timeout_seconds); !abnormal.empty()) {
    return abnormal + ": " + LastLine(p.output);
  }
  if (p.exit_code != 0) {
    return "exited with code " + std::to_string(p.exit_code) + ": " + LastLine(p.output);
  }
  return "";
}

// Writes the job, runs the worker, reads its results; the error when any of it fails.
Expected<PeerResults> TimePeers(FileSystem& fs, ProcessRunner& runner, const PeerRunOptions& o,
                                const PeerJob& job) {
  // Results left by an earlier run must not pass for this run's.
  if (Status s = fs.Remove(o.out_file); !s) return s.error();
  if (Status s = fs.Write(o.job_file, JsonText(job.document) + "\n"); !s) return s.error();
  RunOptions run;
  run.cwd = o.project_dir;
  run.log = o.log;
  run.timeout_seconds = o.timeout_seconds;
  // Progress lines arrive as printed, and importing peers.py leaves no __pycache__ in the project.
  run.env = {{"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"}};
  run.on_line = [&o](const std::string& line) {
    if (o.progress && line.starts_with(kProgressPrefix)) o.progress(OneLine(line));
  };
  const ProcessResult p = runner.Run(PeerWorkerCommand(o), run);
  if (const std::string failure = WorkerFailure(p, o); !failure.empty()) {
    return MakeError(ExitCode::kCheckFailed, "the peer worker " + failure);
  }
  return ReadPeerResults(fs, o.out_file);
}

}  // namespace

fs::path PeersFile(const fs::path& project_dir) { return project_dir / "benchmarks" / "peers.py"; }

fs::path PeerWorkerPath(const fs::path& kbuild_home) {
  return kbuild_home / "tools" / "harness" / "python" / "peer_worker.py";
}

std::vector<std::string> PeerWorkerCommand(const PeerRunOptions& o) {
  // The worker runs in the project folder: a path relative to kbuild's own folder (a relative
  // KBUILD_PYTHON or KBUILD_HOME) is made absolute first. A bare name is looked up on PATH.
  auto anchored = [](const fs::path& p) {
    return (p.is_relative() && p.has_parent_path() ? fs::absolute(p) : p).string();
  };
  return {anchored(o.python),  anchored(o.worker), "--job", anchored(o.job_file), "--out",
          anchored(o.out_file)};
}

PeerRunOutcome RunPeers(FileSystem& fs, ProcessRunner& runner, const PeerRunOptions& o,
                        nlohmann::json* harness_doc) {
  PeerRunOutcome outcome;
  const fs::path peers_file = PeersFile(o.project_dir);
  if (!o.enabled || fs.KindOf(peers_file) == FileKind::kMissing) return outcome;
  nlohmann::json& doc = *harness_doc;
  doc["peer_problems"] = nlohmann::json::array();
  auto finish = [&doc, &outcome](std::string error) {
    outcome.error = std::move(error);
    doc["peer_error"] = outcome.error;
    return outcome;
  };
  if (std::string why = UnusablePeersFile(fs, peers_file); !why.empty()) return finish(why);
  PeerJobSettings settings = o.job;
  settings.peers_file = peers_file;
  const PeerJob job = MakePeerJob(doc, settings);
  for (const auto& skipped : job.skipped) doc["peer_problems"].push_back(skipped);
  if (job.cases() == 0) return finish("");  // nothing timed to compare with
  if (std::string why = UnrunnableWorker(fs, o); !why.empty()) return finish(why);
  if (o.progress) {
    o.progress("time the peers of benchmarks/peers.py on " + std::to_string(job.cases()) + " case" +
               (job.cases() == 1 ? "" : "s") + " with " + o.python.string());
  }
  auto results = TimePeers(fs, runner, o, job);
  if (!results) {
    const Error& e = results.error();
    return finish(e.Located() + (e.hint.empty() ? "" : " (" + e.hint + ")"));
  }
  MergePeerResults(*results, &doc);
  outcome.ran = true;
  return finish("");
}

}  // namespace kb
