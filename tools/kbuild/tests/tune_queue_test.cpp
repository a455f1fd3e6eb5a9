// kbuild tune's variants through the work queue (tune_queue.h) on a locked MemoryFileSystem
// with a fake clock: the payload round trip and what a worker refuses in one; a whole run
// whose variants and finalists a worker thread evaluates, recorded as on this host; the
// defaults lost to a silent worker (exit 1); a resumed run that takes a done result and waits
// for a pending item without queueing either again; a finalist's full tests by a worker.
#include "core/tune_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <thread>

#include "core/tune_results.h"
#include "core/tune_runner.h"
#include "core/tune_space.h"
#include "queue_fakes.h"
#include "tune_fakes.h"

namespace kb {
namespace {

using namespace tune_fakes;
using nlohmann::json;
using queue_fakes::FakeClock;

const fs::path kProject = "/p";
const fs::path kRun = "/p/results/tune-20261201-140000";
const fs::path kQueue = kRun / "queue";

TuneVariant Variant(std::vector<std::pair<std::string, std::string>> values) {
  TuneVariant v;
  v.values = std::move(values);
  v.id = VariantId(v);
  return v;
}

TuneEvaluateSetup Settings() {
  TuneEvaluateSetup s;
  s.run_dir = kRun;
  s.full_tests = false;
  s.test_filter = "Gemm.Odd*";
  s.build_tests = true;
  s.filter = "^gemm/4096";
  s.max_spill_bytes = 16;
  return s;
}

// A done record as a worker writes it.
json Done(const TuneEvaluation& e, int tests_passed) {
  return {{"evaluation", json::parse(HistoryLine(e))}, {"tests_passed", tests_passed}};
}

TEST(TuneWorkPayload, RoundTripsTheVariantItsStepAndSettings) {
  const TuneVariant v = Variant({{"BLOCK", "128"}, {"VECS", "2"}});
  std::string problem;
  const json payload = json::parse(TuneWorkPayload(v, TuneWorkStep::kFullTests, Settings()).dump());
  auto work = TuneWorkFromPayload(payload, v.id + "-full", &problem);
  ASSERT_TRUE(work) << problem;
  EXPECT_EQ(work->variant.id, v.id);
  EXPECT_EQ(work->variant.values, v.values);
  EXPECT_EQ(work->step, TuneWorkStep::kFullTests);
  EXPECT_FALSE(work->settings.full_tests);
  EXPECT_EQ(work->settings.test_filter, "Gemm.Odd*");
  EXPECT_EQ(work->settings.filter, "^gemm/4096");
  EXPECT_EQ(work->settings.max_spill_bytes, 16);
  TuneVariant defaults;
  defaults.id = kTuneDefaultsId;
  EXPECT_TRUE(TuneWorkFromPayload(TuneWorkPayload(defaults, TuneWorkStep::kBenchmark, Settings()),
                                  "defaults", &problem))
      << problem;
}

// Another host wrote the payload: the id becomes a folder name, the defines a command line.
TEST(TuneWorkPayload, RefusesWhatAWorkerMustNotRun) {
  const TuneVariant v = Variant({{"BLOCK", "128"}});
  const json good = TuneWorkPayload(v, TuneWorkStep::kBenchmark, Settings());
  auto refused = [&](json payload, const std::string& queue_id) {
    std::string problem;
    EXPECT_FALSE(TuneWorkFromPayload(payload, queue_id, &problem)) << payload.dump();
    return problem;
  };
  json escaping = good;
  escaping["id"] = "../../../home";
  EXPECT_EQ(refused(escaping, v.id),
            "the variant's id '../../../home' is not its defines' ('" + v.id + "')");
  json injected = good;
  injected["defines"] = {"BLOCK=1 -o/etc/passwd"};
  EXPECT_EQ(refused(injected, v.id).rfind("defines: ", 0), 0u);
  EXPECT_EQ(refused(good, v.id + "-full"), "the variant's id '" + v.id + "' is not the queue id");
  json step = good;
  step["step"] = "profile";
  EXPECT_EQ(refused(step, v.id), "unknown step 'profile'");
  json spills = good;
  spills["max_spill_bytes"] = -1;
  EXPECT_EQ(refused(spills, v.id), "max_spill_bytes is not a whole number >= 0");
  json filter = good;
  filter["bench_filter"] = std::string(5000, 'x');
  EXPECT_EQ(refused(filter, v.id), "bench_filter is too long");
  json flag = good;
  flag.erase("full_tests");
  EXPECT_EQ(refused(flag, v.id), "full_tests is not true or false");
}

TEST(EvaluationFromDoneRecord, KeepsOurVariantAndLosesWhatItCannotRead) {
  const TuneVariant v = Variant({{"BLOCK", "64"}});
  TuneEvaluation worker;
  worker.variant = v;
  worker.variant.values = {{"BLOCK", "9999"}};
  worker.stage = TuneStage::kDone;
  worker.cases = {{"gemm/4096x4096 fp32", 80, 80, 2e8}};
  int passed = 0;
  const TuneEvaluation e = EvaluationFromDoneRecord(Done(worker, 24), v, &passed);
  EXPECT_EQ(e.stage, TuneStage::kDone);
  EXPECT_EQ(e.variant.values, v.values);
  EXPECT_EQ(passed, 24);
  ASSERT_EQ(e.cases.size(), 1u);

  const TuneEvaluation lost = EvaluationFromDoneRecord(
      {{"verdict", "lost"}, {"reason", "worker w1 silent for 130 s after 2 retries"}}, v, &passed);
  EXPECT_EQ(lost.stage, TuneStage::kLost);
  EXPECT_EQ(lost.reason, "worker w1 silent for 130 s after 2 retries");
  worker.variant.id = "v-other";
  json from_other = Done(worker, 1);
  from_other["worker"] = "w2";
  const TuneEvaluation other = EvaluationFromDoneRecord(from_other, v, &passed);
  EXPECT_EQ(other.stage, TuneStage::kLost);
  EXPECT_EQ(other.reason, "unreadable result from worker 'w2': its evaluation is of 'v-other'");
  EXPECT_EQ(passed, 0);
}

// The run folder a worker writes a variant's documents into is another host's: a link on the
// way to variants/<id>, or inside it, makes the item unreadable (recorded lost), never a write
// through it.
TEST(TuneWorkReader, RefusesAVariantFolderThroughALinkOrHoldingOne) {
  const TuneVariant v = Variant({{"BLOCK", "128"}, {"VECS", "2"}});
  const ClaimedWork claimed{v.id, TuneWorkPayload(v, TuneWorkStep::kBenchmark, Settings())};
  FakeProcessRunner runner([](const auto&, const auto&) { return ProcessResult{}; });
  ProjectSnapshot snapshot;
  const TuneWorkerSetup setup{kRun, "/scratch/w1/tune/project", "/opt/kbuild/bin/kbuild",
                              &snapshot};
  std::string problem;
  MemoryFileSystem linked;
  linked.PlantSymlink(kRun / "variants", "/elsewhere");
  EXPECT_FALSE(TuneWorkReader(linked, runner, setup)(claimed, WorkStage::kWhole, &problem));
  EXPECT_NE(problem.find("through the symbolic link " + (kRun / "variants").string()),
            std::string::npos)
      << problem;

  MemoryFileSystem holding;
  holding.PlantSymlink(kRun / "variants" / v.id / "logs", "/elsewhere");
  EXPECT_FALSE(TuneWorkReader(holding, runner, setup)(claimed, WorkStage::kWhole, &problem));
  EXPECT_EQ(problem, (kRun / "variants" / v.id / "logs").string() +
                         " is a symbolic link, which kbuild never makes there");

  MemoryFileSystem clean;
  ASSERT_TRUE(clean.Write(kRun / "variants" / v.id / "build.json", "{}").ok());
  EXPECT_TRUE(TuneWorkReader(clean, runner, setup)(claimed, WorkStage::kWhole, &problem))
      << problem;
}

class TuneQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { ids_ = WriteGemmProject(fs_, kProject); }
  void TearDown() override {
    if (worker_.joinable()) worker_.join();
  }

  std::string Id(const std::string& values) { return ids_.at(values); }

  // Short polls: the fake time a real millisecond adds stays far below the lease.
  std::unique_ptr<QueuedTuneEvaluator> Queued() {
    return std::make_unique<QueuedTuneEvaluator>(
        fs_, kQueue, 2, QueueTimings{.poll_seconds = 0.01, .lease_seconds = 120}, clock_.Clock());
  }

  // A `kbuild worker` on its own thread, its children answered by `runner`, until the test
  // writes queue/stop.
  void StartWorker(ProcessRunner& runner, const ProjectSnapshot& snapshot) {
    worker_ = std::thread([this, &runner, &snapshot] {
      TuneWorkerSetup setup{kRun, "/scratch/w1/tune/project", "/opt/kbuild/bin/kbuild", &snapshot};
      QueueWorkerOptions options;
      options.name = "w1";
      options.idle_exit_seconds = 1e9;
      options.poll_seconds = 0.01;
      options.heartbeat_seconds = 5;
      summary_ = RunQueueWorker(fs_, kQueue, {{kTuneWorkKind, TuneWorkReader(fs_, runner, setup)}},
                                options, clock_.Clock());
    });
  }

  LockedFileSystem fs_;
  FakeClock clock_;
  std::map<std::string, std::string> ids_;
  std::thread worker_;
  Expected<QueueWorkerSummary> summary_ = QueueWorkerSummary{};
};

TEST_F(TuneQueueTest, AWorkerEvaluatesEveryVariantAndFinalistAsThisHostWould) {
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  auto snapshot = SnapshotProject(fs_, kProject);
  ASSERT_TRUE(snapshot.ok());
  TuneOptions options;
  options.project_dir = kProject;
  options.kbuild_exe = "/opt/kbuild/bin/kbuild";
  options.stamp = "20261201-140000";
  options.make_evaluator = [&](const fs::path& run_dir,
                               const ProjectSnapshot&) -> Expected<std::unique_ptr<TuneEvaluator>> {
    EXPECT_EQ(run_dir, kRun);
    StartWorker(runner, *snapshot);  // now: the run folder is taken
    return std::unique_ptr<TuneEvaluator>(Queued());
  };
  std::vector<std::string> progress;
  options.progress = [&](const std::string& line) { progress.push_back(line); };
  auto run = RunTune(fs_, runner, options);
  ASSERT_TRUE(WorkQueue(fs_, kQueue).RequestStop().ok());
  worker_.join();
  ASSERT_TRUE(run.ok()) << run.error().Located();
  ASSERT_TRUE(summary_.ok()) << summary_.error().Located();
  EXPECT_EQ(summary_->evaluated, 7) << "the defaults, four variants, two finalists";

  auto history = ReadHistory(fs_, kRun / kTuneHistoryFile);
  ASSERT_TRUE(history.ok());
  std::map<std::string, TuneEvaluation> by_id;
  for (const auto& e : history->evaluations) by_id[e.variant.id] = e;
  ASSERT_EQ(by_id.size(), 5u);
  EXPECT_EQ(by_id["defaults"].tests, TuneTests::kFull);
  EXPECT_EQ(by_id[Id("BLOCK=64 VECS=1")].reason,
            "gemm/gemm.cu:48:5: identifier \"z\" is undefined");
  EXPECT_EQ(by_id[Id("BLOCK=128 VECS=1")].stage, TuneStage::kSpills);
  const TuneEvaluation& failed = by_id[Id("BLOCK=64 VECS=2")];
  EXPECT_EQ(failed.stage, TuneStage::kTestFailed);
  EXPECT_EQ(failed.reason.rfind("full tests: 1 of 307 cases failed", 0), 0u) << failed.reason;
  ASSERT_EQ(failed.cases.size(), 1u) << "the benchmark the run recorded stays";
  const TuneEvaluation& fast = by_id[Id("BLOCK=128 VECS=2")];
  EXPECT_EQ(fast.stage, TuneStage::kDone);
  EXPECT_EQ(fast.tests, TuneTests::kFull);
  EXPECT_EQ(fast.spill_bytes, 8);
  ASSERT_EQ(run->ranking.ranked.size(), 2u);
  EXPECT_EQ(run->ranking.ranked[0].id, Id("BLOCK=128 VECS=2"));
  EXPECT_TRUE(fs_.Exists(kRun / "tuned_config.h"));

  // The children ran in the worker's scratch copy; their documents are in the run folder.
  for (const auto& argv : runner.Calls()) EXPECT_EQ(argv.at(2), "/scratch/w1/tune/project");
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / Id("BLOCK=128 VECS=2") / "bench.json"));
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / Id("BLOCK=64 VECS=1") / "build.json"));
  EXPECT_FALSE(fs_.Exists(kRun / "variants" / Id("BLOCK=128 VECS=2") / "project"));
  auto done = WorkQueue(fs_, kQueue).Done();
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->size(), 7u);
  EXPECT_TRUE(fs_.Exists(kQueue / "done" / (Id("BLOCK=128 VECS=2") + "-full.json")));
  EXPECT_NE(std::find(progress.begin(), progress.end(),
                      "tune: 4 variants (grid), 2 in the queue at a time, each benchmarked, full "
                      "tests on the best 3, in " +
                          kRun.string()),
            progress.end())
      << ::testing::PrintToString(progress);
}

// A worker claims the defaults and dies: after the retries they are lost, and without a
// baseline the run ends with exit 1 and a hint about the workers.
TEST_F(TuneQueueTest, DefaultsLostToASilentWorkerEndTheRunWithExit1) {
  WorkQueue dead_worker(fs_, kQueue);
  clock_.on_sleep = [&] { (void)dead_worker.Claim("dead-node"); };
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  TuneOptions options;
  options.project_dir = kProject;
  options.stamp = "20261201-140000";
  options.make_evaluator = [&](const fs::path&,
                               const ProjectSnapshot&) -> Expected<std::unique_ptr<TuneEvaluator>> {
    return std::unique_ptr<TuneEvaluator>(std::make_unique<QueuedTuneEvaluator>(
        fs_, kQueue, 2, QueueTimings{.poll_seconds = 50, .lease_seconds = 120}, clock_.Clock()));
  };
  auto run = RunTune(fs_, runner, options);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kCheckFailed);
  EXPECT_EQ(run.error().message,
            "the defaults (the project as it is) failed: lost: worker dead-node sent no "
            "heartbeat after 2 retries");
  EXPECT_EQ(run.error().hint.rfind("no queue worker finished them", 0), 0u) << run.error().hint;
  auto history = ReadHistory(fs_, kRun / kTuneHistoryFile);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->evaluations.size(), 1u);
  EXPECT_EQ(TuneStageWord(history->evaluations[0].stage), "lost");
  EXPECT_TRUE(runner.Calls().empty());
}

// A resumed run finds one variant done (the run was killed before recording it) and one
// pending after a retry: it records the first at once, waits for the second, queues neither.
TEST_F(TuneQueueTest, AResumedRunTakesDoneAndPendingItemsWithoutQueueingThemAgain) {
  const TuneVariant done_variant = Variant({{"BLOCK", "64"}, {"VECS", "2"}});
  const TuneVariant pending_variant = Variant({{"BLOCK", "128"}, {"VECS", "2"}});
  WorkQueue queue(fs_, kQueue);
  TuneEvaluation earlier;
  earlier.variant = done_variant;
  earlier.stage = TuneStage::kBenchFailed;
  earlier.reason = "gemm/4096x4096 fp32: wrote no output";
  ASSERT_TRUE(queue.Complete("w0", done_variant.id, Done(earlier, 0)).ok());
  ASSERT_TRUE(queue.Enqueue(pending_variant.id,
                            TuneWorkPayload(pending_variant, TuneWorkStep::kBenchmark, Settings()),
                            /*retries=*/1));
  int claimed_retries = -1;
  clock_.on_sleep = [&] {
    auto claimed = queue.Claim("w1");
    if (!claimed.ok() || !*claimed) return;
    claimed_retries = (*claimed)->retries;
    TuneEvaluation e;
    e.variant = pending_variant;
    e.stage = TuneStage::kDone;
    e.cases = {{"gemm/4096x4096 fp32", 80, 80, 2e8}};
    (void)queue.Heartbeat("w1", (*claimed)->id, clock_.seconds.load());
    (void)queue.Complete("w1", (*claimed)->id, Done(e, 0));
  };
  std::vector<std::string> recorded;
  TuneEvaluateSetup setup = Settings();
  setup.on_recorded = [&](const TuneEvaluation& e, int) {
    recorded.push_back(e.variant.id + " " + TuneStageWord(e.stage));
  };
  auto end = Queued()->Variants(setup, {done_variant, pending_variant});
  ASSERT_TRUE(end.ok()) << end.error().Located();
  EXPECT_EQ(*end, TuneBatchEnd::kDone);
  EXPECT_EQ(recorded, (std::vector<std::string>{done_variant.id + " bench-failed",
                                                pending_variant.id + " done"}));
  EXPECT_EQ(claimed_retries, 1) << "the pending item was not queued afresh";
  auto history = ReadHistory(fs_, kRun / kTuneHistoryFile);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->evaluations.size(), 2u);
  EXPECT_EQ(history->evaluations[0].reason, "gemm/4096x4096 fp32: wrote no output");
  auto counts = queue.Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->done, 2u);
  EXPECT_EQ(counts->pending + counts->claimed, 0u);
}

// A finalist's full tests by a worker: its verdict and tests, the run's benchmark numbers.
TEST_F(TuneQueueTest, AFinalistsFullTestsComeFromTheWorkerItsNumbersFromTheRun) {
  const TuneVariant v = Variant({{"BLOCK", "128"}, {"VECS", "2"}});
  TuneEvaluation benchmarked;
  benchmarked.variant = v;
  benchmarked.stage = TuneStage::kDone;
  benchmarked.tests = TuneTests::kFiltered;
  benchmarked.cases = {{"gemm/4096x4096 fp32", 80, 80, 2e8}};
  WorkQueue queue(fs_, kQueue);
  std::string step;
  clock_.on_sleep = [&] {
    auto claimed = queue.Claim("w1");
    if (!claimed.ok() || !*claimed) return;
    step = (*claimed)->payload.value("step", "");
    TuneEvaluation tested;
    tested.variant = v;
    tested.stage = TuneStage::kDone;
    tested.tests = TuneTests::kFull;
    (void)queue.Heartbeat("w1", (*claimed)->id, clock_.seconds.load());
    (void)queue.Complete("w1", (*claimed)->id, Done(tested, 306));
  };
  int passed = 0;
  auto e = Queued()->Finalist(Settings(), benchmarked, &passed);
  ASSERT_TRUE(e.ok() && *e);
  EXPECT_EQ(step, "full-tests");
  EXPECT_EQ(passed, 306);
  EXPECT_EQ((*e)->tests, TuneTests::kFull);
  ASSERT_EQ((*e)->cases.size(), 1u);
  EXPECT_EQ((*e)->cases[0].median_us, 80);
  EXPECT_TRUE(fs_.Exists(kQueue / "done" / (v.id + "-full.json")));
  auto history = ReadHistory(fs_, kRun / kTuneHistoryFile);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->evaluations.size(), 1u);
  EXPECT_EQ(history->evaluations[0].tests, TuneTests::kFull);
}

}  // namespace
}  // namespace kb
