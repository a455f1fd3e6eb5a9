// kbuild optimize without a GPU: the scripted proposer (a shell script that
// emits prepared candidates in turn) drives whole runs against a fake
// evaluator behind the CandidateEvaluator seam; the island model, scoring,
// path safety and the child evaluator's verdicts are tested on their own.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "core/optimize_evaluator.h"
#include "core/optimize_history.h"
#include "core/optimize_islands.h"
#include "core/optimize_proposer.h"
#include "core/optimize_run.h"
#include "core/optimize_workers.h"
#include "core/process.h"
#include "core/profile_markdown.h"
#include "core/tune_child.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(KBUILD_TEST_DATA_DIR) / "optimize";

// Judges a candidate by the marker its source carries: "// VERDICT ok 5" passes at 5 us;
// a worker whose device is dead fails (Attempt::worker_failure) whatever it judges.
// Thread-safe: a run with several workers calls it from one thread per worker.
class FakeEvaluator final : public CandidateEvaluator {
 public:
  Expected<std::optional<Attempt>> Evaluate(const Candidate& c,
                                            const EvaluationSlot& slot) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      calls.push_back(c.id);
      devices[c.id] = slot.gpu.value_or("-");
      max_in_flight = std::max(max_in_flight, ++in_flight_);
      if (stop_at == static_cast<int>(calls.size())) {
        --in_flight_;
        return std::optional<Attempt>();  // a kill
      }
    }
    if (hold_seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(hold_seconds));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --in_flight_;
      if (dead_devices.count(slot.gpu.value_or("-")) > 0 &&
          static_cast<int>(calls.size()) >= dies_at_call) {
        Attempt a;
        a.verdict = AttemptVerdict::kLost;
        a.worker_failure = "kbuild test was killed by signal 9";
        return std::optional<Attempt>(a);
      }
    }
    Attempt a;
    std::string word = "ok";
    double us = 10;
    for (const auto& f : c.files) {
      const size_t at = f.content.find("VERDICT ");
      if (at == std::string::npos) continue;
      std::istringstream in(f.content.substr(at + 8));
      in >> word >> us;
    }
    const auto slow = device_slowdown.find(slot.gpu.value_or("-"));
    if (slow != device_slowdown.end()) us *= slow->second;
    a.verdict = VerdictFromWord(word).value_or(AttemptVerdict::kCrashed);
    if (a.verdict == AttemptVerdict::kOk) {
      a.cases = {{"op/large", us, 50, 1e8}, {"op/small", us / 2, 20, 1e6}};
    } else {
      a.first_error = word == "compile_error" ? "csrc/op.cu:1:1: error: expected ';'" : word;
      a.error_source = word == "compile_error" ? "__global__ void op() {}" : "";
    }
    return std::optional<Attempt>(a);
  }
  Expected<std::optional<std::string>> Profile(const Candidate& c, const std::string& case_name,
                                               const EvaluationSlot&) override {
    profiled.push_back(c.id + " " + case_name);
    return std::optional<std::string>(
        ProfileMarkdown(ReadJson(kData / "profile.json"), c.id + " on '" + case_name + "'"));
  }
  static nlohmann::json ReadJson(const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
  }
  std::vector<std::string> calls;
  std::vector<std::string> profiled;              // "<id> <case>"
  std::map<std::string, std::string> devices;     // attempt id -> its slot's CUDA_VISIBLE_DEVICES
  int stop_at = 0;                                // 1-based call that is "killed"; 0 = none
  std::set<std::string> dead_devices;             // their workers fail ("-": the inherited GPUs)
  int dies_at_call = 1;                           // from this 1-based call on
  std::map<std::string, double> device_slowdown;  // device -> factor on every time it gives
  double hold_seconds = 0;                        // how long each evaluation takes
  int max_in_flight = 0;

 private:
  std::mutex mutex_;
  int in_flight_ = 0;
};

class OptimizeRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("kbuild-optimize-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(root_ / "project" / "csrc");
    fs::create_directories(root_ / "state");
    std::ofstream(root_ / "project" / "csrc" / "op.cu") << "__global__ void op() {}\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  OptimizeOptions Options() {
    OptimizeOptions o;
    o.run_dir = root_ / "project" / "results" / "optimize-test";
    o.budget = 8;
    o.islands = {2, 2, 3, 0};  // K=2, R=2, migrate every 3, no restarts
    o.task.project_dir = root_ / "project";
    o.task.op = "op";
    o.task.sources = {"csrc/op.cu"};
    o.progress = [this](const std::string& line) { progress_.push_back(line); };
    return o;
  }
  CommandProposer Scripted() {
    return CommandProposer(
        fs_, runner_,
        "sh " + (kData / "scripted_proposer.sh").string() + " " + (root_ / "state").string(),
        root_ / "project", 60);
  }
  // A whole scripted run with one worker per device.
  Expected<OptimizeRunResult> RunOnWorkers(FakeEvaluator& evaluator,
                                           std::vector<std::string> devices) {
    CommandProposer proposer = Scripted();
    OptimizeOptions options = Options();
    options.worker_devices = std::move(devices);
    return RunOptimize(fs_, proposer, evaluator, options);
  }
  // The run in Options()' folder, resumed with `options` otherwise.
  Expected<OptimizeRunResult> Resume(FakeEvaluator& evaluator, OptimizeOptions options) {
    CommandProposer proposer = Scripted();
    options.run_dir = *ResumeOptimizeRunFolder(fs_, root_ / "project", "results/optimize-test");
    return RunOptimize(fs_, proposer, evaluator, options);
  }
  static std::vector<std::string> Verdicts(const OptimizeRunResult& r) {
    std::vector<std::string> out;
    for (const auto& a : r.attempts) out.push_back(a.candidate.id + " " + VerdictWord(a.verdict));
    return out;
  }

  fs::path root_;
  RealFileSystem fs_;
  RealProcessRunner runner_;
  std::vector<std::string> progress_;
};

const std::vector<std::string> kExpected = {
    "baseline ok",   "a0001 compile_error", "a0002 test_failed",
    "a0003 crashed", "a0004 timed_out",     "a0005 ok",
    "a0006 ok",      "a0007 rule_broken",   "a0008 proposer_failed"};

TEST_F(OptimizeRunTest, ScriptedProposerDrivesAWholeRun) {
  FakeEvaluator evaluator;
  CommandProposer proposer = Scripted();
  auto r = RunOptimize(fs_, proposer, evaluator, Options());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Verdicts(*r), kExpected);
  // Repairs: a0002 and a0003 repair a0001 on island 1; a0005 repairs the hang on island 2.
  const auto& a = r->attempts;
  EXPECT_EQ(a[2].candidate.repair, 1);
  EXPECT_EQ(a[2].candidate.origin, CandidateOrigin::kRepair);
  EXPECT_EQ(a[3].candidate.repair, 2);
  EXPECT_EQ(a[4].candidate.island, 1);
  EXPECT_EQ(a[5].candidate.repair, 1);
  EXPECT_EQ(a[6].candidate.island, 0);
  // Ranking: slow 20 us is 0.5x, fast 5 us 2x the 10 us baseline (geomean over both cases).
  EXPECT_NEAR(a[5].score, 0.5, 1e-9);
  EXPECT_NEAR(a[6].score, 2.0, 1e-9);
  EXPECT_EQ(r->best_id, "a0006");
  EXPECT_NE(a[8].first_error.find("refused notes.txt"), std::string::npos) << a[8].first_error;
  // Migrations after 3 attempts (all islands at the baseline: none) and after 6: island 1's
  // a0006 (2x) goes to island 2, whose next attempt grows from it.
  ASSERT_EQ(r->migrations.size(), 1u);
  EXPECT_EQ(r->migrations[0].id, "a0006");
  EXPECT_EQ(r->migrations[0].after_attempts, 6);
  EXPECT_EQ(r->migrations[0].to, 1);
  EXPECT_EQ(a[7].candidate.island, 1);
  EXPECT_EQ(a[7].candidate.parent, "a0006");
  // Costs: every proposer call reported 100 tokens, $0.5 (the refused one too).
  EXPECT_EQ(r->totals.with_cost, 8);
  EXPECT_NEAR(r->totals.cost.usd, 4.0, 1e-9);
  EXPECT_EQ(r->totals.repairs, 4);
  EXPECT_EQ(r->searched_now, 8) << "the attempts after the baseline";
  EXPECT_GE(r->search_seconds, 0);
  // Run files.
  const fs::path run = r->run_dir;
  for (const char* f :
       {"history.jsonl", "summary.md", "progress.svg", "best/csrc/op.cu",
        "attempts/a0006/context/prompt.md", "attempts/a0006/context/task.md",
        "attempts/a0006/context/best/csrc/op.cu", "attempts/a0002/context/errors.md",
        "attempts/a0006/out/csrc/op.cu", "attempts/a0006/logs/proposer.log"}) {
    EXPECT_TRUE(fs::is_regular_file(run / f)) << f;
  }
  auto errors = fs_.Read(run / "attempts/a0002/context/errors.md");
  EXPECT_NE(errors->find("expected ';'"), std::string::npos);
  EXPECT_NE(errors->find("__global__ void op() {}"), std::string::npos);
  EXPECT_NE(fs_.Read(run / "best/csrc/op.cu")->find("VERDICT ok 5"), std::string::npos);
  EXPECT_NE(fs_.Read(run / "progress.svg")->find("<polyline"), std::string::npos);
  auto history = ReadAttempts(fs_, run / "history.jsonl");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->attempts.size(), 9u);
  EXPECT_FALSE(progress_.empty());
}

TEST_F(OptimizeRunTest, EachNewBestIsProfiledForTheContextOfTheAttemptsAfterIt) {
  FakeEvaluator evaluator;
  CommandProposer proposer = Scripted();
  auto r = RunOptimize(fs_, proposer, evaluator, Options());
  ASSERT_TRUE(r.ok()) << r.error().message;
  // The baseline, then a0006 (2x: island 1's new best); a0005 (0.5x) beat nothing.
  EXPECT_EQ(evaluator.profiled, (std::vector<std::string>{"baseline op/large", "a0006 op/large"}));
  const fs::path run = r->run_dir;
  auto first = fs_.Read(run / "attempts/a0001/context/profile.md");
  ASSERT_TRUE(first.ok());
  EXPECT_NE(first->find("# Profile of baseline on 'op/large'"), std::string::npos) << *first;
  // a0007 grows from a0006 (migrated to island 2): its context holds a0006's profile.
  auto after = fs_.Read(run / "attempts/a0007/context/profile.md");
  ASSERT_TRUE(after.ok());
  EXPECT_NE(after->find("# Profile of a0006 on 'op/large'"), std::string::npos) << *after;
  EXPECT_NE(after->find("- verdict: memory-bound far from peak: latency"), std::string::npos)
      << *after;
  EXPECT_EQ(*fs_.Read(run / "attempts/a0006/profile.md"), *after);
}

TEST_F(OptimizeRunTest, ResumeAfterAKillMidAttemptLosesAndRepeatsNothing) {
  {
    FakeEvaluator evaluator;
    evaluator.stop_at = 6;  // killed while evaluating a0005 (after the baseline and four)
    CommandProposer proposer = Scripted();
    auto r = RunOptimize(fs_, proposer, evaluator, Options());
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->stopped);
    EXPECT_EQ(r->attempts.size(), 5u);
  }
  FakeEvaluator evaluator;
  auto r = Resume(evaluator, Options());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Verdicts(*r), kExpected);
  // a0005 was evaluated again from its saved candidate: the proposer ran 8 times in all.
  EXPECT_EQ(evaluator.calls.front(), "a0005");
  EXPECT_EQ(fs_.Read(root_ / "state" / "count")->substr(0, 1), "8");
  EXPECT_EQ(r->attempted_now, 4);
  // The baseline's profile.md is read back, not made again.
  EXPECT_EQ(evaluator.profiled, std::vector<std::string>{"a0006 op/large"});
  EXPECT_NEAR(r->totals.cost.usd, 4.0, 1e-9);  // a0005's cost kept from before the kill
}

// Two workers (GPUs "3" and "5"): each batch takes one attempt per island, evaluated at
// once, recorded in attempt order; a failure is repaired in its island's next slot.
TEST_F(OptimizeRunTest, WorkersEvaluateOneAttemptPerIslandAtOnce) {
  FakeEvaluator evaluator;
  evaluator.hold_seconds = 0.2;
  auto r = RunOnWorkers(evaluator, {"3", "5"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Verdicts(*r), kExpected);
  EXPECT_EQ(evaluator.max_in_flight, 2);
  const auto& a = r->attempts;
  // Batch 1: a0001 (island 1), a0002 (island 2); batch 2 repairs both, batch 3 again.
  EXPECT_EQ(a[1].candidate.island, 0);
  EXPECT_EQ(a[2].candidate.island, 1);
  EXPECT_EQ(a[3].candidate.repair, 1);
  EXPECT_EQ(a[3].candidate.parent, "baseline");
  EXPECT_EQ(a[3].candidate.island, 0);
  EXPECT_EQ(a[4].candidate.repair, 1);
  EXPECT_EQ(a[4].candidate.island, 1);
  EXPECT_EQ(a[6].candidate.repair, 2);
  // a0006 (2x) migrated to island 1 after 6 attempts: both islands grow from it.
  EXPECT_EQ(a[7].candidate.parent, "a0006");
  EXPECT_EQ(a[8].candidate.parent, "a0006");
  EXPECT_EQ(evaluator.devices["a0001"], "3");
  EXPECT_EQ(evaluator.devices["a0002"], "5");
  EXPECT_EQ(evaluator.devices["baseline"], "-") << "the baseline runs alone";
  EXPECT_EQ(r->best_id, "a0006");
}

TEST_F(OptimizeRunTest, WorkersResumeAfterAKillMidBatch) {
  OptimizeOptions options = Options();
  options.worker_devices = {"0", "1"};
  {
    FakeEvaluator evaluator;
    evaluator.stop_at = 4;  // one of the second batch (a0003, a0004) is killed
    CommandProposer proposer = Scripted();
    auto r = RunOptimize(fs_, proposer, evaluator, options);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->stopped);
    EXPECT_LE(r->attempts.size(), 4u);
  }
  FakeEvaluator evaluator;
  auto r = Resume(evaluator, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Verdicts(*r), kExpected);
  EXPECT_EQ(fs_.Read(root_ / "state" / "count")->substr(0, 1), "8")
      << "the saved candidates of the killed batch were not proposed again";
}

// GPU "5" fails from the second call on (a0002 in the first batch): its worker is retired,
// recorded, and a0002 is judged again on GPU "3"; every attempt is recorded once, in order.
TEST_F(OptimizeRunTest, AFailedWorkerIsRetiredAndItsCandidateJudgedElsewhere) {
  FakeEvaluator evaluator;
  evaluator.dead_devices = {"5"};
  evaluator.dies_at_call = 2;
  auto r = RunOnWorkers(evaluator, {"3", "5"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Verdicts(*r), kExpected);
  ASSERT_EQ(r->worker_failures.size(), 1u);
  EXPECT_EQ(r->worker_failures[0].worker, 1);
  EXPECT_EQ(r->worker_failures[0].device, "5");
  EXPECT_EQ(r->worker_failures[0].reason, "kbuild test was killed by signal 9");
  const std::string judged_twice = r->worker_failures[0].attempt;
  EXPECT_EQ(std::count(evaluator.calls.begin(), evaluator.calls.end(), judged_twice), 2);
  for (const auto& [id, device] : evaluator.devices) {
    if (id != "baseline") EXPECT_EQ(device, "3") << id << " ran last on the retired GPU";
  }
  EXPECT_EQ(fs_.Read(root_ / "state" / "count")->substr(0, 1), "8") << "proposed once each";
  auto history = ReadAttempts(fs_, r->run_dir / "history.jsonl");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->attempts.size(), kExpected.size());
  auto recorded = ReadWorkerFailures(fs_, r->run_dir);
  ASSERT_TRUE(recorded.ok());
  ASSERT_EQ(recorded->size(), 1u);
  EXPECT_EQ((*recorded)[0].attempt, judged_twice);
  auto summary = fs_.Read(r->run_dir / "summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_NE(summary->find("## Workers retired"), std::string::npos);
  EXPECT_NE(summary->find("worker 1 (GPU 5) while judging " + judged_twice), std::string::npos)
      << *summary;
  EXPECT_NE(std::find_if(progress_.begin(), progress_.end(),
                         [](const std::string& l) {
                           return l.find("is judged again on another worker") != std::string::npos;
                         }),
            progress_.end());
}

// GPU "5" times everything twice as slow as GPU "3". With the baseline timed on each GPU,
// a0006 (2x the baseline, judged on "5") scores 2x, and the run says the GPUs differ; scored
// against the one baseline it would score 1x.
TEST_F(OptimizeRunTest, EachCandidateIsScoredAgainstTheBaselineOfItsOwnGpu) {
  auto run = [&](bool per_gpu, const std::string& folder) {
    FakeEvaluator evaluator;
    evaluator.device_slowdown = {{"5", 2.0}};
    CommandProposer proposer = Scripted();
    OptimizeOptions options = Options();
    options.run_dir = root_ / "project" / "results" / folder;
    options.worker_devices = {"3", "5"};
    options.baseline_on_each_worker = per_gpu;
    fs::remove_all(root_ / "state");
    fs::create_directories(root_ / "state");
    auto r = RunOptimize(fs_, proposer, evaluator, options);
    EXPECT_EQ(evaluator.devices["a0006"], "5");
    return r;
  };
  auto score_of = [](const OptimizeRunResult& r, const std::string& id) {
    for (const auto& a : r.attempts) {
      if (a.candidate.id == id) return a.score;
    }
    return -1.0;
  };
  auto r = run(true, "optimize-per-gpu");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Verdicts(*r), kExpected);
  EXPECT_NEAR(score_of(*r, "a0005"), 0.5, 1e-9);
  EXPECT_NEAR(score_of(*r, "a0006"), 2.0, 1e-9);
  EXPECT_EQ(r->best_id, "a0006");
  ASSERT_EQ(r->gpu_baselines.size(), 2u);
  EXPECT_EQ(r->gpu_baselines[1].device, "5");
  EXPECT_NEAR(r->gpu_baselines[0].vs_run, 1.0, 1e-9);
  EXPECT_NEAR(r->gpu_baselines[1].vs_run, 0.5, 1e-9);
  EXPECT_EQ(GpuBaselinesText(r->gpu_baselines),
            "GPU 3 1.000x, GPU 5 0.500x; they differ by 100.0%");
  auto summary = fs_.Read(r->run_dir / "summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_NE(summary->find("| 1 | 5 | 0.500x |"), std::string::npos) << *summary;

  auto one = run(false, "optimize-one-baseline");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_NEAR(score_of(*one, "a0006"), 1.0, 1e-9) << "GPU 5's slowness counted against it";
  EXPECT_TRUE(one->gpu_baselines.empty());
}

// Both GPUs fail: the run ends with exit 4, having recorded what was judged; --resume on
// working GPUs judges the saved candidates without asking the proposer again.
TEST_F(OptimizeRunTest, WhenEveryWorkerFailsTheRunEndsAndResumeJudgesTheRest) {
  OptimizeOptions options = Options();
  options.worker_devices = {"0", "1"};
  {
    FakeEvaluator evaluator;
    evaluator.dead_devices = {"0", "1"};
    evaluator.dies_at_call = 4;  // the second batch (a0003, a0004)
    CommandProposer proposer = Scripted();
    auto r = RunOptimize(fs_, proposer, evaluator, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ExitCode::kEnvironment);
    EXPECT_NE(r.error().message.find("every worker of this run failed"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().hint.find("--resume"), std::string::npos);
  }
  const fs::path run = root_ / "project" / "results" / "optimize-test";
  auto failures = ReadWorkerFailures(fs_, run);
  ASSERT_TRUE(failures.ok());
  EXPECT_EQ(failures->size(), 2u);
  auto history = ReadAttempts(fs_, run / "history.jsonl");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->attempts.size(), 3u) << "the baseline and the first batch";
  FakeEvaluator evaluator;
  auto r = Resume(evaluator, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Verdicts(*r), kExpected);
  EXPECT_EQ(r->worker_failures.size(), 2u) << "read back from workers.jsonl";
  EXPECT_EQ(fs_.Read(root_ / "state" / "count")->substr(0, 1), "8");
}

// One GPU: nowhere else to judge it; the run ends (exit 4) without blaming the candidate.
TEST_F(OptimizeRunTest, OnOneGpuAFailedWorkerEndsTheRunWithoutAVerdict) {
  FakeEvaluator evaluator;
  evaluator.dead_devices = {"-"};
  evaluator.dies_at_call = 3;  // a0002
  CommandProposer proposer = Scripted();
  auto r = RunOptimize(fs_, proposer, evaluator, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(r.error().message,
            "a0002 could not be judged: kbuild test was killed by signal 9 (not the candidate's "
            "doing); nothing was recorded for it");
  EXPECT_FALSE(fs::exists(root_ / "project" / "results" / "optimize-test" / kWorkerFailuresFile))
      << "one GPU: no worker to retire";
  auto history =
      ReadAttempts(fs_, root_ / "project" / "results" / "optimize-test" / "history.jsonl");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->attempts.size(), 2u);
  EXPECT_EQ(history->attempts.back().candidate.id, "a0001");
}

// A candidate whose every worker fails is judged at most 1 + kMaxWorkerReruns times, then
// recorded lost; the pool keeps the worker that never judged it.
TEST(OptimizeWorkers, ACandidateIsJudgedAgainAtMostTwiceThenLost) {
  FakeEvaluator evaluator;
  evaluator.dead_devices = {"a", "b", "c"};
  WorkerPool pool({"a", "b", "c", "d"});
  Candidate killer;
  killer.id = "a0001";
  std::vector<WorkerFailure> seen;
  std::vector<AfterWorkerFailure> said;
  auto outcome = EvaluateOnWorkers(evaluator, pool, {killer}, {fs::path("/tmp/none")},
                                   [&](const WorkerFailure& f, AfterWorkerFailure next) {
                                     seen.push_back(f);
                                     said.push_back(next);
                                     return Status{};
                                   });
  ASSERT_TRUE(outcome.ok());
  ASSERT_EQ(outcome->results.size(), 1u);
  ASSERT_TRUE(outcome->results[0]);
  EXPECT_EQ(outcome->results[0]->verdict, AttemptVerdict::kLost);
  EXPECT_TRUE(outcome->results[0]->worker_failure.empty());
  EXPECT_NE(outcome->results[0]->first_error.find("its workers failed 3 times; the last: worker "
                                                  "2 (GPU c)"),
            std::string::npos)
      << outcome->results[0]->first_error;
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(said, (std::vector<AfterWorkerFailure>{AfterWorkerFailure::kJudgedAgain,
                                                   AfterWorkerFailure::kJudgedAgain,
                                                   AfterWorkerFailure::kLost}))
      << "the last failure must not promise another judgement";
  EXPECT_EQ(AfterWorkerFailureText(said.back(), "a0001"),
            "it is retired; a0001 is recorded lost (its workers failed 3 times)");
  EXPECT_EQ(pool.live_workers(), std::vector<int>{3});
  EXPECT_FALSE(outcome->workers_gone);
}

// With the last worker failing, the candidate is neither judged again nor lost: the run ends
// (exit 4) and --resume judges it.
TEST(OptimizeWorkers, TheLastWorkerFailingLeavesTheCandidateForResume) {
  FakeEvaluator evaluator;
  evaluator.dead_devices = {"a", "b"};
  WorkerPool pool({"a", "b"});
  Candidate killer;
  killer.id = "a0001";
  std::vector<AfterWorkerFailure> said;
  auto outcome = EvaluateOnWorkers(evaluator, pool, {killer}, {fs::path("/tmp/none")},
                                   [&](const WorkerFailure&, AfterWorkerFailure next) {
                                     said.push_back(next);
                                     return Status{};
                                   });
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(said, (std::vector<AfterWorkerFailure>{AfterWorkerFailure::kJudgedAgain,
                                                   AfterWorkerFailure::kNoWorkerLeft}));
  EXPECT_FALSE(outcome->results[0]) << "no verdict: the candidate stays saved for --resume";
  ASSERT_TRUE(outcome->workers_gone);
  EXPECT_EQ(outcome->workers_gone->code, ExitCode::kEnvironment);
}

// workers.jsonl is read back on --resume: a line cut short or not a failure is skipped, a
// planted link is refused (exit 2), never followed.
TEST_F(OptimizeRunTest, WorkerFailuresReadBackSkipJunkAndRefuseALink) {
  const fs::path run = root_ / "run";
  fs::create_directories(run);
  ASSERT_TRUE(
      AppendWorkerFailure(fs_, run, {1, "5", "a0002", "kbuild test was killed by signal 9"}));
  {
    std::ofstream out(run / kWorkerFailuresFile, std::ios::app);
    out << "[1, 2]\n{\"worker\": -1, \"reason\": \"x\"}\n{\"worker\": 0, \"rea";
  }
  auto read = ReadWorkerFailures(fs_, run);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ(WorkerFailureText((*read)[0]),
            "worker 1 (GPU 5) while judging a0002: kbuild test was killed by signal 9");
  fs::remove(run / kWorkerFailuresFile);
  std::ofstream(root_ / "elsewhere.jsonl") << "{}\n";
  fs::create_symlink(root_ / "elsewhere.jsonl", run / kWorkerFailuresFile);
  auto linked = ReadWorkerFailures(fs_, run);
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().code, ExitCode::kUsage);
}

TEST(OptimizeEvaluator, AKilledChildOrALostGpuIsTheWorkersFailureNotTheCandidates) {
  ChildResult failed;
  ProcessResult killed;
  killed.exit_code = 137;
  EXPECT_EQ(WorkerFailureReason(killed, failed, "test"), "kbuild test was killed by signal 9");
  EXPECT_EQ(WorkerFailureReason(killed, failed, "build"), "kbuild build was killed by signal 9");
  ProcessResult hang;
  hang.timed_out = true;
  hang.exit_code = 137;
  EXPECT_EQ(WorkerFailureReason(hang, failed, "test"), "") << "a time limit is the candidate's";
  ChildResult stopped;
  stopped.outcome = ChildOutcome::kStopped;
  ProcessResult terminated;
  terminated.exit_code = 143;
  EXPECT_EQ(WorkerFailureReason(terminated, stopped, "bench"), "") << "a stop, not a failure";
  ChildResult no_gpu;
  no_gpu.outcome = ChildOutcome::kEnvironment;
  no_gpu.reason = "no CUDA device is visible";
  ProcessResult four;
  four.exit_code = 4;
  EXPECT_EQ(WorkerFailureReason(four, no_gpu, "bench"),
            "kbuild bench could not use the GPU: no CUDA device is visible");
  EXPECT_EQ(WorkerFailureReason(four, no_gpu, "build"), "") << "no nvcc: the whole run's problem";
  ProcessResult wrong;
  wrong.exit_code = 1;
  EXPECT_EQ(WorkerFailureReason(wrong, failed, "test"), "");
}

TEST(OptimizeEvaluator, WorkerDevicesFollowCudaVisibleDevices) {
  EXPECT_EQ(WorkerDevices(std::nullopt, 2), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(WorkerDevices(std::nullopt, 0), std::vector<std::string>{});
  EXPECT_EQ(WorkerDevices(std::string("2, 3"), 8), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(WorkerDevices(std::string("GPU-ab12"), 8), std::vector<std::string>{"GPU-ab12"});
  EXPECT_EQ(WorkerDevices(std::string(""), 8), std::vector<std::string>{});
}

TEST_F(OptimizeRunTest, ResumeRefusesFoldersOutsideResults) {
  EXPECT_FALSE(ResumeOptimizeRunFolder(fs_, root_ / "project", "../state").ok());
  EXPECT_FALSE(ResumeOptimizeRunFolder(fs_, root_ / "project", "results/tune-x").ok());
  EXPECT_FALSE(ResumeOptimizeRunFolder(fs_, root_ / "project", "results/optimize-none").ok());
}

// A resumed run writes, reads back and deletes below attempts/ by the names
// its history gives: a link planted anywhere in the run folder is refused.
TEST_F(OptimizeRunTest, ResumeRefusesALinkPlantedInsideTheRun) {
  const fs::path run = root_ / "project" / "results" / "optimize-r";
  fs::create_directories(run / "attempts" / "a0001" / "candidate");
  std::ofstream(run / kOptimizeHistoryFile) << "";
  // Shells complete a folder with a trailing '/'.
  EXPECT_TRUE(ResumeOptimizeRunFolder(fs_, root_ / "project", "results/optimize-r/").ok());
  for (const fs::path& link :
       {run / "attempts" / "a0002", run / "attempts" / "a0001" / "candidate" / "op.cu"}) {
    fs::create_symlink(root_ / "state", link);
    auto resumed = ResumeOptimizeRunFolder(fs_, root_ / "project", "results/optimize-r");
    ASSERT_FALSE(resumed.ok()) << link;
    EXPECT_EQ(resumed.error().code, ExitCode::kUsage);
    EXPECT_NE(resumed.error().message.find(link.string() + " is a symbolic link"),
              std::string::npos)
        << resumed.error().message;
    fs::remove(link);
  }
}

TEST_F(OptimizeRunTest, ProposedFilesMustBeRegularSourceFiles) {
  const std::vector<fs::path> sources = {"csrc/op.cu", "torch-ext/torch_binding.cpp"};
  EXPECT_EQ(ProposedPathProblem("csrc/op.cu", sources), "");
  EXPECT_NE(ProposedPathProblem("/etc/passwd", sources), "");
  EXPECT_NE(ProposedPathProblem("../csrc/op.cu", sources), "");
  EXPECT_NE(ProposedPathProblem("csrc/../../x.cu", sources), "");
  EXPECT_NE(ProposedPathProblem("build.toml", sources), "");

  const fs::path out = root_ / "out";
  fs::create_directories(out / "csrc");
  std::string reason;
  EXPECT_FALSE(CollectProposedFiles(fs_, out, sources, &reason));
  EXPECT_NE(reason.find("no file"), std::string::npos);
  std::ofstream(root_ / "secret") << "x";
  fs::create_symlink(root_ / "secret", out / "csrc" / "op.cu");
  EXPECT_FALSE(CollectProposedFiles(fs_, out, sources, &reason));
  EXPECT_NE(reason.find("csrc/op.cu"), std::string::npos) << reason;
  fs::remove(out / "csrc" / "op.cu");
  fs::create_symlink(root_ / "project" / "csrc", out / "linked");
  std::ofstream(out / "csrc" / "op.cu") << "ok";
  auto files = CollectProposedFiles(fs_, out, sources, &reason);  // a linked folder is not walked
  ASSERT_TRUE(files) << reason;
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].content, "ok");
}

TEST(OptimizeIslands, MigratesTheBestToTheWorstAndRestartsStalledIslands) {
  auto attempt = [](const std::string& id, int island, bool ok, double score, int repair = 0) {
    Attempt a;
    a.candidate.id = id;
    a.candidate.island = island;
    a.candidate.repair = repair;
    a.candidate.origin = id == "baseline" ? CandidateOrigin::kBaseline : CandidateOrigin::kBuiltin;
    a.verdict = ok ? AttemptVerdict::kOk : AttemptVerdict::kCompileError;
    a.score = score;
    return a;
  };
  IslandModel model({2, 0, 2, 3}, "baseline");
  model.Record(attempt("baseline", 0, true, 1.0), "s0");
  EXPECT_EQ(model.Next().island, 0);
  EXPECT_EQ(model.Next().parent, "baseline");
  model.Record(attempt("a0001", 0, true, 2.0), "s1");
  EXPECT_EQ(model.Next().island, 1);
  model.Record(attempt("a0002", 1, false, 0), "s2");
  ASSERT_EQ(model.migrations().size(), 1u);
  EXPECT_EQ(model.islands()[1].best_id, "a0001");
  EXPECT_EQ(model.Next().parent, "a0001");  // island 1 again: a0003 grows from the migrant
  for (int i = 3; i <= 8; ++i) model.Record(attempt(fmt::format("a{:04d}", i), 0, false, 0), "x");
  EXPECT_GE(model.islands()[0].restarts, 1);
  EXPECT_EQ(model.best_id(), "a0001");
  EXPECT_EQ(model.archive().size(), 2u);  // the baseline and a0001

  IslandModel repairing({1, 2, 0, 0}, "baseline");
  repairing.Record(attempt("baseline", 0, true, 1.0), "s0");
  repairing.Record(attempt("a0001", 0, false, 0), "s1");
  EXPECT_EQ(repairing.Next().repair, 1);
  EXPECT_EQ(repairing.Next().repair_of, "a0001");
  repairing.Record(attempt("a0002", 0, false, 0, 1), "s2");
  repairing.Record(attempt("a0003", 0, false, 0, 2), "s3");
  EXPECT_EQ(repairing.Next().repair, 0);  // R repairs spent: the island moves on
}

TEST(OptimizeHistory, LinesRoundTripAndACutLastLineIsRedone) {
  MemoryFileSystem mem;
  Attempt a;
  a.candidate.id = "a0001";
  a.candidate.files = {{"csrc/op.cu", ""}};
  a.candidate.defines = {{"BLOCK", "256"}};
  a.verdict = AttemptVerdict::kOk;
  a.cases = {{"op/large", 5, 50, 1e8}};
  a.score = 2;
  a.cost = AttemptCost{10, 0.1, 1};
  ASSERT_TRUE(AppendAttempt(mem, "/h.jsonl", a).ok());
  auto text = *mem.Read("/h.jsonl");
  ASSERT_TRUE(mem.Write("/h.jsonl", text + "{\"id\": \"a00").ok());
  auto read = ReadAttempts(mem, "/h.jsonl");
  ASSERT_TRUE(read.ok()) << read.error().message << " " << *mem.Read("/h.jsonl");
  ASSERT_EQ(read->attempts.size(), 1u);
  EXPECT_EQ(read->warnings.size(), 1u);
  EXPECT_EQ(read->attempts[0].candidate.defines, a.candidate.defines);
  EXPECT_NEAR(read->attempts[0].cost->usd, 0.1, 1e-12);
  ASSERT_TRUE(mem.Write("/bad.jsonl", "{\"id\": \"../x\"}\n" + text).ok());
  EXPECT_FALSE(ReadAttempts(mem, "/bad.jsonl").ok());
}

// A history line's (or a queue payload's) defines reach the children's command lines and
// best/defines.txt: a name or value --define would refuse makes the line unreadable.
TEST(OptimizeHistory, DefinesAreCheckedAsDefineChecksThem) {
  Attempt a;
  a.candidate.id = "a0001";
  a.candidate.defines = {{"BLOCK", "256"}, {"VEC", "4"}};
  a.verdict = AttemptVerdict::kOk;
  nlohmann::json line = AttemptJson(a);
  std::string problem;
  auto read = AttemptFromJson(line, &problem);
  ASSERT_TRUE(read) << problem;
  EXPECT_EQ(read->candidate.defines, a.candidate.defines);
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"X\nEVIL", "1"},
                                                        {"A", "1;$(touch /tmp/pwn)"},
                                                        {"B", "1 2"},
                                                        {"__cplusplus", "1"},
                                                        {"C", std::string(65, '9')}}) {
    line["defines"] = {{name, value}};
    EXPECT_FALSE(AttemptFromJson(line, &problem)) << name << "=" << value;
    EXPECT_EQ(problem.rfind("key 'defines': --define '", 0), 0u) << problem;
  }
}

TEST(OptimizeEvaluator, ChildRunsGiveVerdictsAndGpusAreCounted) {
  ProcessResult hang;
  hang.timed_out = true;
  EXPECT_EQ(FailedRunVerdict(hang, ""), AttemptVerdict::kTimedOut);
  ProcessResult crash;
  crash.exit_code = 139;
  EXPECT_EQ(FailedRunVerdict(crash, ""), AttemptVerdict::kCrashed);
  ProcessResult failed;
  failed.exit_code = 1;
  EXPECT_EQ(FailedRunVerdict(failed, "op/x: CUDA error: an illegal memory access"),
            AttemptVerdict::kCrashed);
  EXPECT_EQ(FailedRunVerdict(failed, "op/x: physically impossible: 9000 GB/s"),
            AttemptVerdict::kRuleBroken);
  EXPECT_EQ(FailedRunVerdict(failed, "1 of 3 cases failed"), AttemptVerdict::kTestFailed);
  // kbuild test's summary names the first failure's kind (the H200 run of 2026-12-01 gave
  // the crashing candidate this line, which read as a wrong result).
  EXPECT_EQ(FailedRunVerdict(failed, "7 of 8 cases failed, first: op [1x64 bf16]: cuda_error"),
            AttemptVerdict::kCrashed);
  EXPECT_EQ(FailedRunVerdict(failed, "1 of 8 cases failed, first: op [1x64 bf16]: late_write"),
            AttemptVerdict::kRuleBroken);
  EXPECT_EQ(FailedRunVerdict(failed, "2 of 8 cases failed, first: op [1x64 bf16]: mismatch"),
            AttemptVerdict::kTestFailed);

  FakeProcessRunner smi([](const std::vector<std::string>&, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    r.output = "GPU 0: NVIDIA H200 (UUID: a)\nGPU 1: NVIDIA H200 (UUID: b)\n";
    return r;
  });
  EXPECT_EQ(CountGpus(smi), 2);
}

}  // namespace
}  // namespace kb
