#include "core/peer_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/bench_results.h"

namespace kb {
namespace {

constexpr const char* kPython = "/venv/bin/python3";
constexpr const char* kWorker = "/kbuild/tools/harness/python/peer_worker.py";
constexpr const char* kOut = "/p/build/bench-results/peers-1.json";

PeerRunOptions Options() {
  PeerRunOptions o;
  o.project_dir = "/p";
  o.worker = kWorker;
  o.python = kPython;
  o.torch_found_by = "python";
  o.job_file = "/p/build/bench-results/peers-job-1.json";
  o.out_file = kOut;
  o.log = "/p/build/logs/bench.log";
  o.job.project_library = "/p/build/cmake/_ns.so";
  o.job.op_namespace = "_ns";
  return o;
}

nlohmann::json HarnessDocument() {
  return nlohmann::json::parse(R"({
    "schema": "kbuild-harness-bench/1", "device": "NVIDIA H200",
    "cases": [{"benchmark": "rms_norm", "case": "2048x4096 bf16", "verdict": "ok",
               "correctness_only": false, "shape": [2048, 4096], "dtype": "bf16",
               "bytes": 33562624, "atol": 0.0625, "rtol": 0.0625,
               "time_us": {"median": 14.2, "p10": 14.1, "p90": 14.4},
               "baselines": [{"name": "at::rms_norm", "speedup": 1.15}], "problems": []}],
    "failed": 0})");
}

const char* const kResults = R"({
  "schema": "kbuild-peer-results/1", "device": "NVIDIA H200", "torch": "2.11.0+cu130",
  "mode": "events+l2flush",
  "peers": [{"name": "torch.compile", "available": true, "reason": ""}],
  "records": [{"benchmark": "rms_norm", "case": "2048x4096 bf16",
               "ours": {"time_us": {"median": 14.5, "p10": 14.3, "p90": 14.9},
                        "host_us_per_call": 4.1, "problem": ""},
               "peers": [{"name": "torch.compile",
                          "time_us": {"median": 29.0, "p10": 28.8, "p90": 29.5},
                          "host_us_per_call": 31.0, "problem": ""}]}],
  "problems": []})";

struct Fixture {
  MemoryFileSystem fs;
  Fixture() {
    (void)fs.Write("/p/benchmarks/peers.py", "BENCHMARKS = {}\n");
    (void)fs.Write(kWorker, "# the worker\n");
  }
};

FakeProcessRunner Exits(int code, std::string output, bool timed_out = false) {
  return FakeProcessRunner([=](const std::vector<std::string>&, const RunOptions&) {
    ProcessResult r;
    r.exit_code = code;
    r.timed_out = timed_out;
    r.output = output;
    return r;
  });
}

TEST(PeerRunner, RunsTheWorkerWithTorchsPythonAndMergesItsResults) {
  Fixture f;
  std::vector<std::string> progress;
  PeerRunOptions o = Options();
  o.progress = [&progress](const std::string& line) { progress.push_back(line); };
  nlohmann::json job;
  FakeProcessRunner runner([&](const std::vector<std::string>& argv, const RunOptions& run) {
    EXPECT_EQ(argv,
              (std::vector<std::string>{kPython, kWorker, "--job",
                                        "/p/build/bench-results/peers-job-1.json", "--out", kOut}));
    EXPECT_EQ(run.cwd, "/p");
    EXPECT_EQ(run.log, std::filesystem::path("/p/build/logs/bench.log"));
    EXPECT_DOUBLE_EQ(run.timeout_seconds, 1200);
    EXPECT_EQ(run.env.at("PYTHONDONTWRITEBYTECODE"), "1");
    job = nlohmann::json::parse(*f.fs.Read("/p/build/bench-results/peers-job-1.json"));
    run.on_line("peers: rms_norm/2048x4096 bf16: torch.compile");
    run.on_line("W1130 a warning from inductor");
    (void)f.fs.Write(kOut, kResults);
    return ProcessResult{0, false, false, ""};
  });
  nlohmann::json doc = HarnessDocument();
  const PeerRunOutcome outcome = RunPeers(f.fs, runner, o, &doc);
  EXPECT_TRUE(outcome.ran);
  EXPECT_FALSE(outcome.failed()) << outcome.error;
  EXPECT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(job["peers_file"], "/p/benchmarks/peers.py");
  EXPECT_EQ(job["namespace"], "_ns");
  EXPECT_EQ(job["cases"].size(), 1u);
  EXPECT_EQ(progress,
            (std::vector<std::string>{
                "time the peers of benchmarks/peers.py on 1 case with " + std::string(kPython),
                "peers: rms_norm/2048x4096 bf16: torch.compile"}));
  ASSERT_EQ(doc["cases"][0]["baselines"].size(), 2u);
  EXPECT_DOUBLE_EQ(doc["cases"][0]["baselines"][1]["speedup"].get<double>(), 2.0);
  EXPECT_EQ(doc["peer_error"], "");
  EXPECT_EQ(doc["peer_problems"], nlohmann::json::array());
}

// The real process path, with sh standing in for Python: the worker's lines reach the progress
// callback and the bench log as they are printed, and the file it writes is merged.
TEST(PeerRunner, RealWorkerProcessStreamsProgressToTheLogAndIsMerged) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kbuild-peers-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "benchmarks");
  std::ofstream(dir / "benchmarks" / "peers.py") << "BENCHMARKS = {}\n";
  std::ofstream(dir / "worker.sh") << "echo 'peers: rms_norm/2048x4096 bf16: torch.compile' >&2\n"
                                   << "echo 'a line that is not progress'\n"
                                   << "cat > \"$4\" <<'EOF'\n"
                                   << kResults << "\nEOF\n";
  PeerRunOptions o = Options();
  o.project_dir = dir;
  o.python = "/bin/sh";
  o.worker = dir / "worker.sh";
  o.job_file = dir / "build" / "job.json";
  o.out_file = dir / "build" / "out.json";
  o.log = dir / "bench.log";
  std::vector<std::string> progress;
  o.progress = [&progress](const std::string& line) { progress.push_back(line); };
  RealFileSystem fs;
  RealProcessRunner runner;
  nlohmann::json doc = HarnessDocument();
  const PeerRunOutcome outcome = RunPeers(fs, runner, o, &doc);
  EXPECT_TRUE(outcome.ran) << outcome.error;
  EXPECT_EQ(progress.back(), "peers: rms_norm/2048x4096 bf16: torch.compile");
  EXPECT_EQ(*fs.Read(o.log),
            "peers: rms_norm/2048x4096 bf16: torch.compile\na line that is not progress\n");
  EXPECT_EQ(doc["cases"][0]["baselines"][1]["name"], "torch.compile");
  std::filesystem::remove_all(dir);
}

// kbuild's job against the real worker (tools/harness/python/peer_worker.py) and the repo's
// Python: the worker accepts the job and stops at the first thing this test cannot give it - a
// GPU on a machine without one, else the op library - with its one-line reason. A job the
// worker rejected would name the job file instead.
TEST(PeerRunner, RealWorkerAcceptsTheJobAndSaysWhyItStops) {
  const std::filesystem::path root = KBUILD_SOURCE_ROOT;
  const std::filesystem::path python = root / ".venv" / "bin" / "python3";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "no " << python << " (the repo's venv)";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("kbuild-real-worker-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "benchmarks");
  std::ofstream(dir / "benchmarks" / "peers.py") << "BENCHMARKS = {}\n";
  PeerRunOptions o = Options();
  o.project_dir = dir;
  o.python = python;
  o.worker = PeerWorkerPath(root);
  o.job_file = dir / "build" / "job.json";
  o.out_file = dir / "build" / "out.json";
  o.log = dir / "bench.log";
  o.timeout_seconds = 300;
  o.job.project_library = dir / "missing.so";
  RealFileSystem fs;
  RealProcessRunner runner;
  nlohmann::json doc = HarnessDocument();
  const std::string error = RunPeers(fs, runner, o, &doc).error;
  const bool no_gpu = error.find("sees no CUDA device") != std::string::npos;
  const bool no_library = error.find("missing.so does not exist") != std::string::npos;
  EXPECT_TRUE(error.starts_with("the peer worker exited with code 1: peer_worker: ") &&
              (no_gpu || no_library))
      << error;
  std::filesystem::remove_all(dir);
}

// The worker runs in the project folder, so a path relative to kbuild's folder must not reach it
// as it is (KBUILD_PYTHON=.venv/bin/python3 would name another file there).
TEST(PeerRunner, RelativePathsReachTheWorkerAbsolute) {
  PeerRunOptions o = Options();
  o.python = ".venv/bin/python3";
  o.worker = "share/kbuild/tools/harness/python/peer_worker.py";
  const std::vector<std::string> argv = PeerWorkerCommand(o);
  EXPECT_EQ(argv[0], (std::filesystem::current_path() / ".venv/bin/python3").string());
  EXPECT_EQ(argv[1], (std::filesystem::current_path() / o.worker).string());
  o.python = "python3";  // looked up on PATH
  EXPECT_EQ(PeerWorkerCommand(o)[0], "python3");
}

TEST(PeerRunner, NoPeersFlagSkipsTheWorker) {
  Fixture f;
  PeerRunOptions o = Options();
  o.enabled = false;
  FakeProcessRunner runner = Exits(0, "");
  nlohmann::json doc = HarnessDocument();
  const PeerRunOutcome outcome = RunPeers(f.fs, runner, o, &doc);
  EXPECT_FALSE(outcome.ran);
  EXPECT_FALSE(outcome.failed());
  EXPECT_TRUE(runner.calls.empty());
  EXPECT_EQ(doc, HarnessDocument());
}

TEST(PeerRunner, ProjectWithoutPeersPyIsLeftAsItWas) {
  MemoryFileSystem fs;
  FakeProcessRunner runner = Exits(0, "");
  nlohmann::json doc = HarnessDocument();
  EXPECT_FALSE(RunPeers(fs, runner, Options(), &doc).failed());
  EXPECT_TRUE(runner.calls.empty());
  EXPECT_EQ(doc, HarnessDocument());
}

TEST(PeerRunner, WorkerFailureKeepsTheCppResultsAndFailsTheRun) {
  Fixture f;
  FakeProcessRunner runner =
      Exits(1,
            "Traceback (most recent call last):\n  File \"benchmarks/peers.py\", line 3\n"
            "SyntaxError: invalid syntax\n");
  nlohmann::json doc = HarnessDocument();
  const PeerRunOutcome outcome = RunPeers(f.fs, runner, Options(), &doc);
  EXPECT_FALSE(outcome.ran);
  EXPECT_EQ(outcome.error, "the peer worker exited with code 1: SyntaxError: invalid syntax");
  EXPECT_EQ(doc["cases"], HarnessDocument()["cases"]);
  EXPECT_EQ(doc["peer_error"], outcome.error);
  auto table = ParseBenchDocument(doc);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->rows.size(), 1u);
  EXPECT_EQ(BenchExitCode(*table), ExitCode::kCheckFailed);
}

TEST(PeerRunner, TimeoutSaysWhichFlagRaisesIt) {
  Fixture f;
  FakeProcessRunner runner = Exits(124, "peers: rms_norm/2048x4096 bf16: liger\n", true);
  nlohmann::json doc = HarnessDocument();
  EXPECT_EQ(RunPeers(f.fs, runner, Options(), &doc).error,
            "the peer worker timed out after 1200 s (raise the limit with --peers-timeout); last "
            "output: peers: rms_norm/2048x4096 bf16: liger");
}

TEST(PeerRunner, CrashIsNamed) {
  Fixture f;
  FakeProcessRunner runner = Exits(128 + 11, "peers: rms_norm/2048x4096 bf16: quack\n");
  nlohmann::json doc = HarnessDocument();
  EXPECT_EQ(RunPeers(f.fs, runner, Options(), &doc).error,
            "the peer worker crashed with SIGSEGV: peers: rms_norm/2048x4096 bf16: quack");
}

// Results an earlier run left must not pass for this run's.
TEST(PeerRunner, StaleResultsAreRemovedBeforeTheRun) {
  Fixture f;
  (void)f.fs.Write(kOut, kResults);
  FakeProcessRunner runner = Exits(0, "");
  nlohmann::json doc = HarnessDocument();
  const PeerRunOutcome outcome = RunPeers(f.fs, runner, Options(), &doc);
  EXPECT_EQ(outcome.error, std::string(kOut) +
                               ": the peer worker exited 0 but wrote no results (kbuild and its "
                               "peer worker (tools/harness/python/peer_worker.py in kbuild's data "
                               "folder) disagree: reinstall kbuild, or point KBUILD_HOME at the "
                               "tree this kbuild came from)");
  EXPECT_EQ(doc["cases"], HarnessDocument()["cases"]);
}

TEST(PeerRunner, ResultsOfTheWrongShapeKeepTheCppResults) {
  Fixture f;
  FakeProcessRunner runner([&f](const std::vector<std::string>&, const RunOptions&) {
    (void)f.fs.Write(kOut, R"({"schema": "kbuild-peer-results/1", "records": 5})");
    return ProcessResult{0, false, false, ""};
  });
  nlohmann::json doc = HarnessDocument();
  const PeerRunOutcome outcome = RunPeers(f.fs, runner, Options(), &doc);
  EXPECT_TRUE(outcome.error.starts_with(std::string(kOut) +
                                        ": the peer results are not a kbuild-peer-results/1 "
                                        "document: device: missing"))
      << outcome.error;
  EXPECT_EQ(doc["cases"], HarnessDocument()["cases"]);
}

TEST(PeerRunner, PeersPyThatIsASymlinkIsRefusedAndNothingRuns) {
  MemoryFileSystem fs;
  (void)fs.Write(kWorker, "");
  fs.PlantSymlink("/p/benchmarks/peers.py", "/home/someone/.ssh/id_rsa");
  FakeProcessRunner runner = Exits(0, "");
  nlohmann::json doc = HarnessDocument();
  EXPECT_EQ(RunPeers(fs, runner, Options(), &doc).error,
            "/p/benchmarks/peers.py: not a regular file (it is a symbolic link)");
  EXPECT_TRUE(runner.calls.empty());
}

TEST(PeerRunner, HugePeersPyIsRefused) {
  Fixture f;
  (void)f.fs.Write("/p/benchmarks/peers.py", std::string(kMaxPeersFileBytes + 1, '#'));
  FakeProcessRunner runner = Exits(0, "");
  nlohmann::json doc = HarnessDocument();
  const std::string error = RunPeers(f.fs, runner, Options(), &doc).error;
  EXPECT_TRUE(error.starts_with("/p/benchmarks/peers.py: file is larger than")) << error;
  EXPECT_TRUE(runner.calls.empty());
}

TEST(PeerRunner, TorchFoundWithoutAPythonSaysToSetKbuildPython) {
  Fixture f;
  PeerRunOptions o = Options();
  o.python.clear();
  o.torch_found_by = "KBUILD_TORCH_DIR";
  FakeProcessRunner runner = Exits(0, "");
  nlohmann::json doc = HarnessDocument();
  EXPECT_EQ(RunPeers(f.fs, runner, o, &doc).error,
            "no Python to run the peers with: torch was found through KBUILD_TORCH_DIR; set "
            "KBUILD_PYTHON to the python3 that has torch (or pass --no-peers)");
  EXPECT_TRUE(runner.calls.empty());
}

TEST(PeerRunner, MissingWorkerPointsAtTheDataFolder) {
  Fixture f;
  (void)f.fs.Remove(kWorker);
  FakeProcessRunner runner = Exits(0, "");
  nlohmann::json doc = HarnessDocument();
  const std::string error = RunPeers(f.fs, runner, Options(), &doc).error;
  EXPECT_TRUE(error.starts_with(std::string("the peer worker ") + kWorker + " is missing: "))
      << error;
}

TEST(PeerRunner, NothingTimedMeansNoWorkerAndNoError) {
  Fixture f;
  nlohmann::json doc = HarnessDocument();
  doc["cases"][0]["verdict"] = "fail";
  FakeProcessRunner runner = Exits(0, "");
  EXPECT_FALSE(RunPeers(f.fs, runner, Options(), &doc).failed());
  EXPECT_TRUE(runner.calls.empty());
}

TEST(PeerRunner, CasesTheJobLeavesOutAreNamedWithThePeerProblems) {
  Fixture f;
  nlohmann::json doc = HarnessDocument();
  nlohmann::json old = doc["cases"][0];
  old["case"] = "old";
  old.erase("rtol");
  doc["cases"].push_back(old);
  FakeProcessRunner runner([&f](const std::vector<std::string>&, const RunOptions&) {
    (void)f.fs.Write(kOut, kResults);
    return ProcessResult{0, false, false, ""};
  });
  ASSERT_FALSE(RunPeers(f.fs, runner, Options(), &doc).failed());
  ASSERT_EQ(doc["peer_problems"].size(), 1u);
  EXPECT_TRUE(doc["peer_problems"][0].get<std::string>().starts_with(
      "rms_norm/old: the harness record has no tolerance"));
}

}  // namespace
}  // namespace kb
