// kbuild worker's two roles (work_queue.h's built/ and running/, built_tree.h) on a locked
// MemoryFileSystem with a fake clock: an item goes pending -> claimed (build) -> built ->
// running (gpu) -> done; a build worker that dies mid-build loses its claim after the lease,
// a silent gpu worker's item goes back to built/; a whole tune run through a build worker and
// a gpu worker, where the gpu worker's children never build and a compile error is recorded
// by the build stage; a resumed run that finds a built item waits for it; a link planted in a
// built tree loses the item rather than being followed.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <thread>

#include "core/built_tree.h"
#include "core/json_fields.h"
#include "core/tune_queue.h"
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

TEST(StagedWorkQueue, AnItemIsBuiltThenRunThenDoneWithRetriesPerStage) {
  MemoryFileSystem mem;
  WorkQueue queue(mem, kQueue);
  ASSERT_TRUE(queue.Enqueue("v1", {{"kind", "x"}}));
  // A build worker claims it and dies: after the lease it is pending again, one retry up.
  ASSERT_TRUE(*queue.Claim("cpu1"));
  ASSERT_TRUE(queue.Heartbeat("cpu1", "v1", 1000).ok());
  EXPECT_EQ(queue.Counts()->claimed, 1u);
  ASSERT_TRUE(queue.Reclaim(1100, 120, 2)->requeued.empty()) << "within its lease";
  EXPECT_EQ(queue.Reclaim(1200, 120, 2)->requeued, std::vector<std::string>{"v1"});
  EXPECT_FALSE(*queue.Claim("gpu1", ClaimFrom::kBuilt)) << "nothing built yet";
  auto again = queue.Claim("cpu2");
  ASSERT_TRUE(*again);
  EXPECT_EQ((*again)->retries, 1);
  // Built: the item leaves claimed/ for built/, its retries the next stage's own.
  ASSERT_TRUE(*queue.PublishBuilt("cpu2", "v1", {{"builder", "cpu2"}}));
  auto counts = queue.Counts();
  EXPECT_EQ(counts->claimed + counts->pending, 0u);
  EXPECT_EQ(counts->built, 1u);
  EXPECT_TRUE(*queue.IsQueued("v1")) << "a resumed run must not queue a built item again";
  EXPECT_FALSE(*queue.Claim("cpu2")) << "build workers take pending items only";
  // A gpu worker takes it, goes silent: back to built/, not to pending/.
  auto run = queue.Claim("gpu1", ClaimFrom::kBuilt);
  ASSERT_TRUE(*run);
  EXPECT_EQ((*run)->retries, 0);
  EXPECT_EQ((*run)->built, json({{"builder", "cpu2"}}));
  EXPECT_EQ(queue.Counts()->running, 1u);
  EXPECT_EQ(queue.Reclaim(2000, 120, 2)->requeued, std::vector<std::string>{"v1"});
  EXPECT_EQ(queue.Counts()->built, 1u);
  auto rerun = queue.Claim("gpu2", ClaimFrom::kBuilt);
  ASSERT_TRUE(*rerun);
  EXPECT_EQ((*rerun)->retries, 1);
  ASSERT_TRUE(mem.Write(kQueue / "items/v1/cpu2/project/build/x.o", "obj").ok());
  ASSERT_EQ(*queue.Complete("gpu2", "v1", {{"verdict", "ok"}}), CompleteOutcome::kRecorded);
  counts = queue.Counts();
  EXPECT_EQ(counts->done, 1u);
  EXPECT_EQ(counts->running + counts->built, 0u);
  EXPECT_FALSE(mem.Exists(kQueue / "items/v1")) << "the built tree goes with the item";
}

class StagedTuneTest : public ::testing::Test {
 protected:
  void SetUp() override { ids_ = WriteGemmProject(fs_, kProject); }
  void TearDown() override {
    for (auto& t : workers_) {
      if (t.joinable()) t.join();
    }
  }

  std::unique_ptr<QueuedTuneEvaluator> Queued() {
    return std::make_unique<QueuedTuneEvaluator>(
        fs_, kQueue, 2, QueueTimings{.poll_seconds = 0.01, .lease_seconds = 120}, clock_.Clock());
  }

  void StartWorker(const std::string& name, WorkerRole role, LockedRunner& runner,
                   const ProjectSnapshot& snapshot, Expected<QueueWorkerSummary>& summary) {
    workers_.emplace_back([this, name, role, &runner, &snapshot, &summary] {
      TuneWorkerSetup setup{kRun, "/scratch/" + name, "/opt/kbuild/bin/kbuild", &snapshot,
                            StagedWorkSetup{kQueue, "/stage", name}};
      QueueWorkerOptions options;
      options.name = name;
      options.role = role;
      options.idle_exit_seconds = 1e9;
      options.poll_seconds = 0.01;
      options.heartbeat_seconds = 5;
      summary = RunQueueWorker(fs_, kQueue, {{kTuneWorkKind, TuneWorkReader(fs_, runner, setup)}},
                               options, clock_.Clock());
    });
  }

  LockedFileSystem fs_;
  FakeClock clock_;
  std::map<std::string, std::string> ids_;
  std::vector<std::thread> workers_;
};

TEST_F(StagedTuneTest, ABuildWorkerBuildsAndAGpuWorkerOnlyTestsAndBenchmarks) {
  LockedRunner builder([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  LockedRunner gpu([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  auto snapshot = SnapshotProject(fs_, kProject);
  ASSERT_TRUE(snapshot.ok());
  Expected<QueueWorkerSummary> built_summary = QueueWorkerSummary{};
  Expected<QueueWorkerSummary> gpu_summary = QueueWorkerSummary{};
  TuneOptions options;
  options.project_dir = kProject;
  options.kbuild_exe = "/opt/kbuild/bin/kbuild";
  options.stamp = "20261201-140000";
  options.make_evaluator = [&](const fs::path&,
                               const ProjectSnapshot&) -> Expected<std::unique_ptr<TuneEvaluator>> {
    StartWorker("cpu1", WorkerRole::kBuild, builder, *snapshot, built_summary);
    StartWorker("gpu1", WorkerRole::kGpu, gpu, *snapshot, gpu_summary);
    return std::unique_ptr<TuneEvaluator>(Queued());
  };
  auto run = RunTune(fs_, builder, options);
  ASSERT_TRUE(WorkQueue(fs_, kQueue).RequestStop().ok());
  for (auto& t : workers_) t.join();
  ASSERT_TRUE(run.ok()) << run.error().Located();
  ASSERT_TRUE(built_summary.ok()) << built_summary.error().Located();
  ASSERT_TRUE(gpu_summary.ok()) << gpu_summary.error().Located();
  // Seven items: the compile error and the spilling variant end at the build stage.
  EXPECT_EQ(built_summary->built, 5);
  EXPECT_EQ(built_summary->evaluated, 2);
  EXPECT_EQ(gpu_summary->evaluated, 5);

  for (const auto& [command, values] : gpu.Children()) {
    EXPECT_TRUE(command == "test" || command == "bench") << "the gpu worker ran " << command;
  }
  for (const auto& [command, values] : builder.Children()) {
    EXPECT_TRUE(command == "build" || command.find("--build-only") != std::string::npos)
        << "the build worker ran " << command;
  }
  // Every child ran in the staged copy: the same path for both roles.
  for (const auto& argv : gpu.Calls()) EXPECT_EQ(argv.at(2).rfind("/stage/", 0), 0u);

  auto history = ReadHistory(fs_, kRun / kTuneHistoryFile);
  ASSERT_TRUE(history.ok());
  std::map<std::string, TuneEvaluation> by_id;
  for (const auto& e : history->evaluations) by_id[e.variant.id] = e;
  EXPECT_EQ(by_id[ids_.at("BLOCK=64 VECS=1")].stage, TuneStage::kBuildFailed);
  EXPECT_EQ(by_id[ids_.at("BLOCK=64 VECS=1")].reason,
            "gemm/gemm.cu:48:5: identifier \"z\" is undefined");
  EXPECT_EQ(by_id[ids_.at("BLOCK=128 VECS=1")].stage, TuneStage::kSpills);
  const TuneEvaluation& fast = by_id[ids_.at("BLOCK=128 VECS=2")];
  EXPECT_EQ(fast.stage, TuneStage::kDone);
  EXPECT_EQ(fast.spill_bytes, 8) << "the build stage's facts reach the record";
  EXPECT_GT(fast.build_seconds, 0);
  EXPECT_EQ(fast.tests, TuneTests::kFull);
  ASSERT_EQ(run->ranking.ranked.size(), 2u);
  EXPECT_EQ(run->ranking.ranked[0].id, ids_.at("BLOCK=128 VECS=2"));
  auto counts = WorkQueue(fs_, kQueue).Counts();
  EXPECT_EQ(counts->done, 7u);
  EXPECT_EQ(counts->built + counts->running + counts->pending + counts->claimed, 0u);
}

// A resumed run finds a variant built and waiting: it queues nothing, no build worker builds it
// again, and a gpu worker finishes it.
TEST_F(StagedTuneTest, AResumedRunWaitsForABuiltItemWithoutBuildingItAgain) {
  const std::string id = ids_.at("BLOCK=128 VECS=2");
  TuneVariant variant;
  variant.id = id;
  variant.values = {{"BLOCK", "128"}, {"VECS", "2"}};
  TuneEvaluateSetup settings;
  settings.run_dir = kRun;
  settings.full_tests = true;
  settings.build_tests = true;
  settings.max_spill_bytes = 16;
  WorkQueue queue(fs_, kQueue);
  ASSERT_TRUE(queue.Enqueue(id, TuneWorkPayload(variant, TuneWorkStep::kBenchmark, settings)));
  ASSERT_TRUE(*queue.Claim("cpu0"));
  const fs::path copy = StagedCopyDir("/stage", kQueue, id);
  ASSERT_TRUE(fs_.Write(kQueue / "items" / id / "cpu0/build/logs/build.log", "built\n").ok());
  ASSERT_TRUE(*queue.PublishBuilt(
      "cpu0", id,
      {{"builder", "cpu0"}, {"copy", copy.string()}, {"build_seconds", 40}, {"spill_bytes", 8}}));

  LockedRunner builder([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  LockedRunner gpu([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  auto snapshot = SnapshotProject(fs_, kProject);
  ASSERT_TRUE(snapshot.ok());
  Expected<QueueWorkerSummary> built_summary = QueueWorkerSummary{};
  Expected<QueueWorkerSummary> gpu_summary = QueueWorkerSummary{};
  StartWorker("cpu1", WorkerRole::kBuild, builder, *snapshot, built_summary);
  StartWorker("gpu1", WorkerRole::kGpu, gpu, *snapshot, gpu_summary);
  std::vector<TuneEvaluation> recorded;
  settings.on_recorded = [&](const TuneEvaluation& e, int) { recorded.push_back(e); };
  auto end = Queued()->Variants(settings, {variant});
  ASSERT_TRUE(queue.RequestStop().ok());
  for (auto& t : workers_) t.join();
  ASSERT_TRUE(end.ok()) << end.error().Located();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].stage, TuneStage::kDone);
  EXPECT_EQ(recorded[0].build_seconds, 40);
  EXPECT_TRUE(builder.Calls().empty()) << "built once, never again";
  EXPECT_FALSE(gpu.Calls().empty());
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / id / "bench.json"));
}

// A built tree holding a planted link, or one built at another path, is not used: the item is
// lost with the reason and nothing is followed or run.
TEST_F(StagedTuneTest, AnUnusableBuiltTreeLosesTheItemWithTheReason) {
  const std::string id = ids_.at("BLOCK=128 VECS=2");
  TuneVariant variant;
  variant.id = id;
  variant.values = {{"BLOCK", "128"}, {"VECS", "2"}};
  WorkQueue queue(fs_, kQueue);
  ASSERT_TRUE(queue.Enqueue(id, TuneWorkPayload(variant, TuneWorkStep::kBenchmark, {})));
  ASSERT_TRUE(*queue.Claim("cpu0"));
  fs_.mem.PlantSymlink(kQueue / "items" / id / "cpu0/build/secret", "/etc/passwd");
  ASSERT_TRUE(*queue.PublishBuilt(
      "cpu0", id, {{"builder", "cpu0"}, {"copy", StagedCopyDir("/stage", kQueue, id).string()}}));
  LockedRunner gpu([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  auto snapshot = SnapshotProject(fs_, kProject);
  Expected<QueueWorkerSummary> summary = QueueWorkerSummary{};
  clock_.on_sleep = [&] {
    if (queue.Counts()->done == 1) (void)queue.RequestStop();
  };
  StartWorker("gpu1", WorkerRole::kGpu, gpu, *snapshot, summary);
  workers_.back().join();
  ASSERT_TRUE(summary.ok()) << summary.error().Located();
  auto done = queue.DoneRecordOf(id);
  ASSERT_TRUE(done.ok() && *done);
  EXPECT_EQ(StringOr(**done, "verdict"), "lost");
  EXPECT_NE(StringOr(**done, "reason").find("is not a regular file (refused, not followed)"),
            std::string::npos)
      << **done;
  EXPECT_TRUE(gpu.Calls().empty());
}

}  // namespace
}  // namespace kb
