// The Slurm side of --backend slurm against a fake sbatch / squeue / scancel: the batch
// script's quoting, the array's argv, the job id, the task states, refused options; and the
// queue's config.json and project copy (queue_setup.h) as a worker reads them.
#include "core/slurm_jobs.h"

#include <gtest/gtest.h>

#include "core/queue_setup.h"

namespace kb {
namespace {

ProcessResult Printed(const std::string& output, int exit_code = 0) {
  ProcessResult r;
  r.output = output;
  r.exit_code = exit_code;
  return r;
}

TEST(SlurmJobs, TheBatchScriptQuotesPathsAndNamesTheWorkerAfterItsTask) {
  const std::string script = WorkerBatchScript("/opt/kbuild/bin/kbuild", "/shared/it's/queue");
  EXPECT_NE(script.find("exec /opt/kbuild/bin/kbuild worker --queue '/shared/it'\\''s/queue' "
                        "--name \"slurm-${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}-"
                        "${SLURM_ARRAY_TASK_ID:-0}\"\n"),
            std::string::npos)
      << script;
}

TEST(SlurmJobs, ARoleArraysScriptPassesItsRole) {
  const std::string script = WorkerBatchScript("/k b/kbuild", "/q", "build");
  EXPECT_NE(script.find("exec '/k b/kbuild' worker --queue /q --role build --name "),
            std::string::npos)
      << script;
}

TEST(SlurmJobs, OnlyTheBuildArrayGoesWithoutAGpuAndItsErrorsNameTheBuildOptions) {
  EXPECT_TRUE(CheckSlurmOptions({.gres = "", .role = "build"}));
  EXPECT_FALSE(CheckSlurmOptions({.gres = "", .role = "gpu"}));
  EXPECT_FALSE(CheckSlurmOptions({.role = "cpu"}));
  auto partition = CheckSlurmOptions({.partition = "a b", .gres = "", .role = "build"});
  ASSERT_FALSE(partition);
  EXPECT_EQ(partition.error().message, "--build-partition: letters, digits, _ . - only");
  auto time = CheckSlurmOptions({.time_limit = "1h", .gres = "", .role = "build"});
  ASSERT_FALSE(time);
  EXPECT_EQ(time.error().message, "--build-time: Slurm's time format (e.g. 2:00:00 or 1-00:00:00)");
  const auto argv = SbatchArgv({.tasks = 1, .gres = "", .role = "build"}, "/q");
  EXPECT_EQ(argv, (std::vector<std::string>{
                      "sbatch", "--parsable", "--job-name=kbuild-build-worker", "--array=0-0",
                      "--output=/q/slurm/%A_%a.out", "/q/worker-build.sbatch"}));
}

TEST(SlurmJobs, SubmitsOneArrayTaskPerJobWithOneGpuEach) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const auto&, const auto&) { return Printed("4121;cluster\n"); });
  SlurmOptions o;
  o.tasks = 3;
  o.partition = "gpu-h200";
  o.account = "ml_team";
  o.time_limit = "4:00:00";
  auto id = SubmitWorkerArray(fs, runner, o, "/opt/kbuild", "/s/q");
  ASSERT_TRUE(id.ok()) << id.error().Located();
  EXPECT_EQ(*id, "4121");
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0],
            (std::vector<std::string>{
                "sbatch", "--parsable", "--job-name=kbuild-worker", "--array=0-2", "--gres=gpu:1",
                "--output=/s/q/slurm/%A_%a.out", "--partition=gpu-h200", "--account=ml_team",
                "--time=4:00:00", "/s/q/worker.sbatch"}));
  EXPECT_TRUE(fs.Exists("/s/q/worker.sbatch"));
}

TEST(SlurmJobs, RefusesOptionsSlurmWouldMisreadBeforeRunningAnything) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const auto&, const auto&) { return Printed("1\n"); });
  auto plain = SubmitWorkerArray(fs, runner, {}, "/k", "/q");  // "<id>\n" without a cluster
  ASSERT_TRUE(plain.ok()) << plain.error().Located();
  EXPECT_EQ(*plain, "1");
  runner.calls.clear();
  for (auto bad : {SlurmOptions{.tasks = 0}, SlurmOptions{.partition = "gpu --wrap=rm"},
                   SlurmOptions{.account = "a;b"}, SlurmOptions{.time_limit = "2h"}}) {
    auto id = SubmitWorkerArray(fs, runner, bad, "/k", "/q");
    ASSERT_FALSE(id.ok()) << bad.partition << bad.account << bad.time_limit;
    EXPECT_EQ(id.error().code, ExitCode::kUsage) << id.error().message;
  }
  EXPECT_TRUE(runner.calls.empty());
}

TEST(SlurmJobs, ASbatchThatRefusesOrIsMissingIsAnEnvironmentError) {
  MemoryFileSystem fs;
  FakeProcessRunner refusing([](const auto&, const auto&) {
    return Printed("sbatch: error: Invalid account or account/partition combination\n", 1);
  });
  auto id = SubmitWorkerArray(fs, refusing, {}, "/k", "/q");
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().code, ExitCode::kEnvironment);
  EXPECT_NE(id.error().message.find("Invalid account"), std::string::npos) << id.error().message;
  FakeProcessRunner missing([](const auto&, const auto&) {
    ProcessResult r;
    r.not_found = true;
    return r;
  });
  auto none = SubmitWorkerArray(fs, missing, {}, "/k", "/q");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "sbatch: not found on PATH");
}

TEST(SlurmJobs, CountsWaitingAndRunningTasksAndAGoneJobAsNone) {
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const auto&) {
    if (argv.at(4) == "77") return Printed("slurm_load_jobs error: Invalid job id specified\n", 1);
    return Printed("RUNNING\nPENDING\nPENDING\nCOMPLETING\nCONFIGURING\n");
  });
  auto state = QueryWorkerArray(runner, "4121");
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->running, 2);
  EXPECT_EQ(state->pending, 3);
  auto gone = QueryWorkerArray(runner, "77");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->running + gone->pending, 0);
}

TEST(QueueSetup, AWorkerReadsWhatTheRunWroteAndRefusesAHostileConfig) {
  MemoryFileSystem fs;
  ProjectSnapshot snapshot;
  snapshot.files = {{"build.toml", "[general]\nname = \"op\"\n"}};
  ASSERT_TRUE(WriteQueueSetup(fs, "/r/queue", {"^rms_norm/", 600, 90}, snapshot));
  EXPECT_TRUE(fs.Exists("/r/queue/project/build.toml"));
  auto setup = ReadQueueSetup(fs, "/r/queue");
  ASSERT_TRUE(setup.ok()) << setup.error().Located();
  EXPECT_EQ(setup->bench_filter, "^rms_norm/");
  EXPECT_EQ(setup->child_timeout, 600);
  EXPECT_EQ(setup->lease_seconds, 90);

  ASSERT_TRUE(fs.Write("/r/queue/config.json", R"({"child_timeout": -1, "lease_seconds": 90})"));
  auto negative = ReadQueueSetup(fs, "/r/queue");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().code, ExitCode::kUsage);
  EXPECT_NE(negative.error().message.find("child_timeout"), std::string::npos);
  auto missing = ReadQueueSetup(fs, "/elsewhere");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no queue configuration"), std::string::npos);
}

}  // namespace
}  // namespace kb
