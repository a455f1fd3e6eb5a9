// The run side of --backend slurm against a fake sbatch / squeue / scancel: one array of
// --role all workers by default; with a build array, a CPU array of --role build workers
// (no --gres, its own partition and time) and a GPU array of --role gpu workers, both
// cancelled at the end and both kept by a resumed run while they still have tasks.
#include "core/queue_backend.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kb {
namespace {

namespace fs = std::filesystem;

bool Has(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

// sbatch prints 501 for the build array and 502 for the others; squeue shows `queued` tasks
// of every array; scancel succeeds. Each call is recorded.
FakeProcessRunner FakeSlurm(const std::string& queued) {
  return FakeProcessRunner([queued](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    if (argv[0] == "sbatch")
      r.output = Has(argv, "--job-name=kbuild-build-worker") ? "501\n" : "502\n";
    if (argv[0] == "squeue") r.output = queued;
    return r;
  });
}

QueueBackendOptions TwoArrays() {
  QueueBackendOptions options;
  options.slurm = true;
  options.kbuild_exe = "/opt/kb/kbuild";
  options.progress_seconds = 3600;
  options.array = {.tasks = 2, .partition = "h200", .time_limit = "4:00:00", .role = "gpu"};
  options.build_array = SlurmOptions{
      .tasks = 2, .partition = "cpu", .time_limit = "1:00:00", .gres = "", .role = "build"};
  return options;
}

std::vector<std::vector<std::string>> CallsOf(const FakeProcessRunner& runner,
                                              const std::string& program) {
  std::vector<std::vector<std::string>> calls;
  for (const auto& argv : runner.calls) {
    if (argv[0] == program) calls.push_back(argv);
  }
  return calls;
}

TEST(QueueBackend, ABuildArrayOnCpuNodesAndAGpuArrayAreSubmittedAndCancelledTogether) {
  MemoryFileSystem fs;
  FakeProcessRunner runner = FakeSlurm("");
  std::vector<std::string> lines;
  auto backend = QueueBackend::Start(fs, runner, TwoArrays(), "/r/queue", {},
                                     [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(backend.ok()) << backend.error().Located();
  EXPECT_EQ((*backend)->build_job_id(), "501");
  EXPECT_EQ((*backend)->job_id(), "502");
  const auto sbatch = CallsOf(runner, "sbatch");
  ASSERT_EQ(sbatch.size(), 2u);
  EXPECT_EQ(sbatch[0], (std::vector<std::string>{
                           "sbatch", "--parsable", "--job-name=kbuild-build-worker", "--array=0-1",
                           "--output=/r/queue/slurm/%A_%a.out", "--partition=cpu", "--time=1:00:00",
                           "/r/queue/worker-build.sbatch"}));
  EXPECT_EQ(sbatch[1], (std::vector<std::string>{
                           "sbatch", "--parsable", "--job-name=kbuild-gpu-worker", "--array=0-1",
                           "--gres=gpu:1", "--output=/r/queue/slurm/%A_%a.out", "--partition=h200",
                           "--time=4:00:00", "/r/queue/worker.sbatch"}));
  EXPECT_NE(fs.Read("/r/queue/worker-build.sbatch")->find(" --role build --name "),
            std::string::npos);
  EXPECT_NE(fs.Read("/r/queue/worker.sbatch")->find(" --role gpu --name "), std::string::npos);
  EXPECT_EQ(*fs.Read("/r/queue/slurm-build-job.txt"), "501\n");
  EXPECT_EQ(*fs.Read("/r/queue/slurm-job.txt"), "502\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "submitted Slurm array 501 (2 build workers, no GPU)");
  EXPECT_EQ(lines[1], "submitted Slurm array 502 (2 gpu workers, gres gpu:1)");

  (*backend)->Finish();
  EXPECT_EQ(CallsOf(runner, "scancel"),
            (std::vector<std::vector<std::string>>{{"scancel", "501"}, {"scancel", "502"}}));
  EXPECT_TRUE(fs.Exists("/r/queue/stop"));
}

TEST(QueueBackend, AResumedRunKeepsBothArraysWhileTheyHaveTasks) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.Write("/r/queue/slurm-build-job.txt", "41\n"));
  ASSERT_TRUE(fs.Write("/r/queue/slurm-job.txt", "42\n"));
  FakeProcessRunner runner = FakeSlurm("PENDING\nRUNNING\n");
  auto backend = QueueBackend::Start(fs, runner, TwoArrays(), "/r/queue", {}, [](auto&) {});
  ASSERT_TRUE(backend.ok()) << backend.error().Located();
  EXPECT_TRUE(CallsOf(runner, "sbatch").empty());
  EXPECT_EQ((*backend)->build_job_id(), "41");
  EXPECT_EQ((*backend)->job_id(), "42");
}

TEST(QueueBackend, WithoutABuildArrayOneArrayOfAllRoleWorkers) {
  MemoryFileSystem fs;
  FakeProcessRunner runner = FakeSlurm("");
  QueueBackendOptions options = TwoArrays();
  options.build_array.reset();
  options.array.role = "all";
  auto backend = QueueBackend::Start(fs, runner, options, "/r/queue", {}, [](auto&) {});
  ASSERT_TRUE(backend.ok()) << backend.error().Located();
  ASSERT_EQ(CallsOf(runner, "sbatch").size(), 1u);
  EXPECT_TRUE(Has(CallsOf(runner, "sbatch")[0], "--job-name=kbuild-worker"));
  EXPECT_EQ(fs.Read("/r/queue/worker.sbatch")->find("--role"), std::string::npos);
  EXPECT_FALSE(fs.Exists("/r/queue/slurm-build-job.txt"));
  EXPECT_EQ((*backend)->build_job_id(), "");
  (*backend)->Finish();
  EXPECT_EQ(CallsOf(runner, "scancel"),
            (std::vector<std::vector<std::string>>{{"scancel", "502"}}));
}

}  // namespace
}  // namespace kb
