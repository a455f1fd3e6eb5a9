#include "core/bench_runner.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "core/file_write.h"

namespace kb {
namespace {

BenchRunOptions Options() {
  BenchRunOptions o;
  o.binary = "/p/build/cmake/kbuild_benchmarks";
  o.json_file = "/p/build/bench-results/b.json";
  o.log = "/p/build/logs/bench.log";
  return o;
}

TEST(BenchRunner, PassesFilterGraphAndLaunchCountsToTheHarness) {
  BenchRunOptions o = Options();
  o.filter = "scale_add/.*bf16";
  o.graph = true;
  o.warmup = 5;
  o.iterations = 50;
  o.env = {{"KBUILD_PEAK_BW_GBPS", "4273.0"}};
  o.project_library = "/p/build/cmake/_ns_abc.so";
  EXPECT_EQ(BenchCommand(o), (std::vector<std::string>{o.binary.string(), "--benchmark_color=false",
                                                       "--benchmark_filter=scale_add/.*bf16"}));
  EXPECT_EQ(BenchEnvironment(o), (std::map<std::string, std::string>{
                                     {"KBUILD_BENCH_GRAPH", "1"},
                                     {"KBUILD_BENCH_ITERS", "50"},
                                     {"KBUILD_BENCH_JSON", "/p/build/bench-results/b.json"},
                                     {"KBUILD_BENCH_WARMUP", "5"},
                                     {"KBUILD_PEAK_BW_GBPS", "4273.0"},
                                     {"KBUILD_PROJECT_LIBRARY", "/p/build/cmake/_ns_abc.so"}}));
}

// kbuild tune and optimize time the variant alone: the harness skips the baselines.
TEST(BenchRunner, NoBaselinesReachesTheHarness) {
  BenchRunOptions o = Options();
  EXPECT_EQ(BenchEnvironment(o).count("KBUILD_BENCH_NO_BASELINES"), 0u);
  o.no_baselines = true;
  EXPECT_EQ(BenchEnvironment(o).at("KBUILD_BENCH_NO_BASELINES"), "1");
}

TEST(BenchRunner, CrashBeforeAnyResultIsAFailureWithTheCudaError) {
  MemoryFileSystem fs;
  (void)fs.Write("/p/build/bench-results/b.json", "{\"stale\": true}");  // from an earlier run
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions&) {
    return ProcessResult{128 + 6, false, false, "CUDA error: invalid device function\nAborted\n"};
  });
  auto run = RunBenchmarks(fs, runner, Options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kCheckFailed);
  EXPECT_EQ(run.error().message,
            "the benchmark binary crashed with SIGABRT before writing any result");
  EXPECT_EQ(run.error().detail, "CUDA error: invalid device function\nAborted\n");
}

// The harness writes its JSON itself, so the results folder must exist before it runs
// (seen on the H200, 2026-11-30: "cannot write results" on a fresh project).
TEST(BenchRunner, CreatesTheResultsFolderBeforeTheHarnessRuns) {
  MemoryFileSystem fs;
  bool folder_existed = false;
  FakeProcessRunner runner([&](const std::vector<std::string>&, const RunOptions&) {
    folder_existed = fs.IsDirectory("/p/build/bench-results");
    return ProcessResult{0, false, false, ""};
  });
  (void)RunBenchmarks(fs, runner, Options());
  EXPECT_TRUE(folder_existed);
}

TEST(BenchRunner, LogThatIsASymlinkIsRefusedNamingTheLog) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions& run) {
    ProcessResult r;
    r.log_error = WriteFailure(*run.log, ELOOP);
    return r;
  });
  auto run = RunBenchmarks(fs, runner, Options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().Located(),
            "/p/build/logs/bench.log: refusing to write through a symbolic link");
}

TEST(BenchRunner, TimeoutKeepsTheCasesMeasuredBefore) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([&fs](const std::vector<std::string>&, const RunOptions& run) {
    EXPECT_DOUBLE_EQ(run.timeout_seconds, 600);
    (void)fs.Write(run.env.at("KBUILD_BENCH_JSON"),
                   R"({"schema": "kbuild-harness-bench/1", "cases": []})");
    return ProcessResult{124, true, false, "scale_add/1 bf16 ...\n"};
  });
  auto run = RunBenchmarks(fs, runner, Options());
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->document["schema"], "kbuild-harness-bench/1");
  EXPECT_EQ(run->problem,
            "the benchmark binary timed out after 600 s; only the cases before it are shown\n"
            "scale_add/1 bf16 ...\n");
}

TEST(BenchRunner, RejectedArgumentsAreBadUsage) {
  MemoryFileSystem fs;
  FakeProcessRunner runner([](const std::vector<std::string>&, const RunOptions&) {
    return ProcessResult{2, false, false, "unrecognized command-line flag\n"};
  });
  auto run = RunBenchmarks(fs, runner, Options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kUsage);
}

TEST(BenchRunner, WarnsWhenTheHarnessIgnoredTheLaunchCounts) {
  BenchRunOptions o = Options();
  o.warmup = 3;
  o.iterations = 100;
  const nlohmann::json doc = {{"cases", {{{"warmup", 10}, {"iterations", 100}}}}};
  EXPECT_EQ(LaunchCountWarnings(doc, o),
            std::vector<std::string>{"asked for --warmup 3 but the harness ran warm-up launches: "
                                     "10 (it does not read KBUILD_BENCH_WARMUP)"});
}

}  // namespace
}  // namespace kb
