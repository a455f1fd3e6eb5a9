// kbuild tune's run, driven without a GPU or a compiler: the children
// (`kbuild -C <copy> build|test|bench --json`) answer from a script, the
// project lives in a MemoryFileSystem (fakes in tune_fakes.h; the finalists
// in tune_finalists_test.cpp). Covers the stages and reasons a history
// records, that invalid variants never rank, the files written, the build
// phase (`kbuild build`, then `test|bench --build-only` with the same
// --define, so the GPU steps compile nothing), --resume after a stop, the
// defaults failing (exit 1), no GPU (exit 4 after the build), a killed child
// (exit 4) and a hostile --resume folder (exit 2). What tune reads from the children's documents
// and build logs: tune_child_test.cpp.
#include "core/tune_runner.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "core/tune_results.h"
#include "core/tune_space.h"
#include "core/tune_workspace.h"
#include "tune_fakes.h"

namespace kb {
namespace {

using namespace tune_fakes;

const std::filesystem::path kProject = "/p";
const std::filesystem::path kRun = "/p/results/tune-20261201-140000";

class TuneRunTest : public ::testing::Test {
 protected:
  void SetUp() override { ids_ = WriteGemmProject(fs_, kProject); }

  TuneOptions Options() const {
    TuneOptions o;
    o.project_dir = kProject;
    o.kbuild_exe = "/opt/kbuild/bin/kbuild";
    o.stamp = "20261201-140000";
    o.build_jobs = 2;
    return o;
  }

  std::string Id(const std::string& values) { return ids_.at(values); }

  std::vector<TuneEvaluation> History() {
    auto history = ReadHistory(fs_, kRun / kTuneHistoryFile);
    EXPECT_TRUE(history.ok());
    return history.ok() ? history->evaluations : std::vector<TuneEvaluation>{};
  }

  LockedFileSystem fs_;
  std::map<std::string, std::string> ids_;
};

// --full-tests all: every variant runs the full suite before its benchmark.
TEST_F(TuneRunTest, GridRecordsEveryStageAndRanksOnlyValidVariants) {
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  std::vector<std::string> progress;
  TuneOptions options = Options();
  options.full_tests = kTuneFullTestsAll;
  options.progress = [&](const std::string& line) { progress.push_back(line); };
  auto run = RunTune(fs_, runner, options);
  ASSERT_TRUE(run.ok()) << run.error().Located();

  const auto history = History();
  ASSERT_EQ(history.size(), 5u);
  std::map<std::string, TuneEvaluation> by_id;
  for (const auto& e : history) by_id[e.variant.id] = e;
  EXPECT_EQ(history[0].variant.id, "defaults");
  EXPECT_EQ(by_id["defaults"].stage, TuneStage::kDone);
  const auto& broken = by_id[Id("BLOCK=64 VECS=1")];
  EXPECT_EQ(broken.stage, TuneStage::kBuildFailed);
  EXPECT_EQ(broken.reason, "gemm/gemm.cu:48:5: identifier \"z\" is undefined");
  const auto& wrong = by_id[Id("BLOCK=64 VECS=2")];
  EXPECT_EQ(wrong.stage, TuneStage::kTestFailed);
  EXPECT_EQ(wrong.reason, "1 of 307 cases failed, first: gemm [7x33 fp32]: mismatch");
  const auto& spills = by_id[Id("BLOCK=128 VECS=1")];
  EXPECT_EQ(spills.stage, TuneStage::kSpills);
  EXPECT_EQ(spills.reason, "spills 48 bytes");
  EXPECT_EQ(spills.spill_bytes, 48);
  const auto& fast = by_id[Id("BLOCK=128 VECS=2")];
  EXPECT_EQ(fast.stage, TuneStage::kDone);
  EXPECT_DOUBLE_EQ(fast.build_seconds, 12.5 + 1.5 + 1.5) << "build, test and bench binaries";
  EXPECT_EQ(fast.spill_bytes, 8) << "read from kbuild build's log, before the harness builds";
  EXPECT_DOUBLE_EQ(spills.build_seconds, 12.5) << "a spilling variant builds no harness";
  ASSERT_EQ(fast.cases.size(), 1u) << "correctness_only cases are not timed";
  EXPECT_EQ(fast.cases[0].name, "gemm/4096x4096 fp32");
  EXPECT_DOUBLE_EQ(fast.cases[0].median_us, 80.0);

  ASSERT_EQ(run->ranking.ranked.size(), 2u);
  EXPECT_EQ(run->ranking.ranked[0].id, Id("BLOCK=128 VECS=2"));
  EXPECT_DOUBLE_EQ(run->ranking.ranked[0].score, 1.25);
  EXPECT_EQ(run->ranking.ranked[1].id, "defaults");
  EXPECT_EQ(run->ranking.unranked.size(), 3u);
  ASSERT_EQ(run->best.size(), 1u);
  EXPECT_EQ(run->best[0].id, Id("BLOCK=128 VECS=2"));
  EXPECT_FALSE(run->stopped);
  EXPECT_EQ(run->evaluated_now, 5);
  EXPECT_EQ(run->searched_now, 4) << "the throughput leaves the defaults out";

  for (const char* name : {"summary.md", "heatmap.svg", "tuned_config.h"}) {
    EXPECT_TRUE(fs_.Exists(kRun / name)) << name;
  }
  auto header = fs_.Read(kRun / "tuned_config.h");
  ASSERT_TRUE(header.ok());
  EXPECT_NE(header->find("X(268435456LL, 128, 2)"), std::string::npos) << *header;
  EXPECT_TRUE(fs_.Exists(kRun / "variants/defaults/project/gemm/gemm.cu"));
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / Id("BLOCK=64 VECS=1") / "build.json"));
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / Id("BLOCK=128 VECS=2") / "bench.json"));
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / Id("BLOCK=128 VECS=2") / "test-build.json"));
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / Id("BLOCK=128 VECS=2") / "bench-build.json"));

  const std::string last = "tune: [4/4] " + Id("BLOCK=128 VECS=2") +
                           " BLOCK=128 VECS=2: built 15.5 s, 306 tests passed, geomean 1.25x "
                           "vs defaults";
  EXPECT_NE(std::find(progress.begin(), progress.end(), last), progress.end())
      << ::testing::PrintToString(progress);
}

TEST_F(TuneRunTest, ChildrenBuildTheirOwnCopyWithTheVariantsDefines) {
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  TuneOptions options = Options();
  options.full_tests = kTuneFullTestsAll;
  options.filter = "4096";
  ASSERT_TRUE(RunTune(fs_, runner, options).ok());
  const auto children = runner.Children();
  ASSERT_GE(children.size(), 5u);
  // The build phase builds the harness binaries too, so the GPU steps compile nothing.
  EXPECT_EQ(children[0].first, "build");
  EXPECT_TRUE(children[0].second.empty()) << "the defaults build without --define";
  EXPECT_EQ(children[1].first, "test --build-only");
  EXPECT_EQ(children[2].first, "bench --build-only");
  EXPECT_EQ(children[3].first, "test");
  EXPECT_EQ(children[4].first, "bench");
  // 5 builds; the harness built and tested for 3 (one did not compile, one spills);
  // 2 benchmarks (one failed its test).
  std::map<std::string, int> count;
  for (const auto& c : children) ++count[c.first];
  EXPECT_EQ(count["build"], 5);
  EXPECT_EQ(count["test --build-only"], 3);
  EXPECT_EQ(count["bench --build-only"], 3);
  EXPECT_EQ(count["test"], 3);
  EXPECT_EQ(count["bench"], 2);
  // The exact command lines: the running kbuild on the variant's copy, the same --define
  // arguments in every step (a differing one would make Ninja rebuild in the GPU phase).
  const std::string copy = (kRun / "variants" / Id("BLOCK=128 VECS=2") / "project").string();
  const std::vector<std::string> head = {"/opt/kbuild/bin/kbuild", "-C", copy};
  const std::vector<std::string> defines = {"--define", "BLOCK=128", "--define", "VECS=2"};
  auto line = [&](const std::string& command, const std::vector<std::string>& extra) {
    std::vector<std::string> argv = head;
    argv.push_back(command);
    argv.insert(argv.end(), defines.begin(), defines.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  };
  std::vector<std::vector<std::string>> lines;
  for (const auto& argv : runner.Calls()) {
    if (argv.at(2) == copy) lines.push_back(argv);
  }
  EXPECT_EQ(lines,
            (std::vector<std::vector<std::string>>{
                line("build", {"-j1", "--json"}), line("test", {"--build-only", "-j1", "--json"}),
                line("bench", {"--build-only", "-j1", "--json"}), line("test", {"--json"}),
                line("bench", {"--no-baselines", "--json", "--filter", "4096"})}));
}

TEST_F(TuneRunTest, HarnessThatDoesNotCompileIsABuildFailure) {
  LockedRunner runner([this](const auto& argv, const auto&) {
    const Values v = LockedRunner::ValuesOf(argv);
    if (BuildOnly(argv) && argv.at(3) == "bench" && v == Values{{"BLOCK", "128"}, {"VECS", "2"}}) {
      return Answer(3, ErrorDocument("bench", 3,
                                     {{"message", "no matching function for call to 'Launch'"},
                                      {"path", "benchmarks/gemm_bench.cpp"},
                                      {"line", 12},
                                      {"column", 3}}));
    }
    return ScriptedGemm(fs_, argv);
  });
  TuneOptions options = Options();
  options.full_tests = 0;  // no variant runs tests: none builds them
  ASSERT_TRUE(RunTune(fs_, runner, options).ok());
  std::map<std::string, TuneEvaluation> by_id;
  for (const auto& e : History()) by_id[e.variant.id] = e;
  const auto& broken = by_id[Id("BLOCK=128 VECS=2")];
  EXPECT_EQ(broken.stage, TuneStage::kBuildFailed);
  EXPECT_EQ(broken.reason,
            "benchmarks/gemm_bench.cpp:12:3: no matching function for call to 'Launch'");
  EXPECT_NEAR(broken.build_seconds, 12.5, 0.5) << "the failed step's own time, near 0 here";
  EXPECT_TRUE(fs_.Exists(kRun / "variants" / Id("BLOCK=128 VECS=2") / "bench-build.json"));
  std::map<std::string, int> count;
  for (const auto& [command, values] : runner.Children()) {
    ++count[command];
    if (command == "bench") EXPECT_NE(values, (Values{{"BLOCK", "128"}, {"VECS", "2"}}));
  }
  EXPECT_EQ(count["test --build-only"], 1) << "the defaults' only: they run the full suite";
  EXPECT_EQ(count["bench --build-only"], 3);
  EXPECT_EQ(count["bench"], 2) << "the defaults and BLOCK=64 VECS=2 (no tests to fail)";
}

TEST_F(TuneRunTest, ResumeAfterAStopEvaluatesOnlyTheRest) {
  // The first run is stopped while building its third variant.
  int builds = 0;
  LockedRunner stopping([&](const auto& argv, const auto&) {
    if (argv.at(3) == "build" && ++builds == 4) {
      ProcessResult r;
      r.interrupted = true;
      r.exit_code = 130;
      return r;
    }
    return ScriptedGemm(fs_, argv);
  });
  TuneOptions options = Options();
  options.build_jobs = 1;
  auto first = RunTune(fs_, stopping, options);
  ASSERT_TRUE(first.ok()) << first.error().Located();
  EXPECT_TRUE(first->stopped);
  ASSERT_EQ(History().size(), 3u) << "defaults and two variants; nothing half-done";
  EXPECT_TRUE(fs_.Exists(kRun / "summary.md")) << "what finished is ranked";

  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  options.resume = "results/tune-20261201-140000";
  auto second = RunTune(fs_, runner, options);
  ASSERT_TRUE(second.ok()) << second.error().Located();
  EXPECT_FALSE(second->stopped);
  EXPECT_EQ(second->evaluated_now, 2);
  std::set<Values> built;
  for (const auto& [command, values] : runner.Children()) {
    if (command == "build") built.insert(values);
  }
  EXPECT_EQ(built, (std::set<Values>{{{"BLOCK", "128"}, {"VECS", "1"}},
                                     {{"BLOCK", "128"}, {"VECS", "2"}}}));
  EXPECT_EQ(History().size(), 5u);
  EXPECT_EQ(second->ranking.ranked.size(), 2u);
}

TEST_F(TuneRunTest, DefaultsFailingIsExit1AndNothingElseRuns) {
  LockedRunner runner([this](const auto& argv, const auto&) {
    if (argv.at(3) == "test" && !BuildOnly(argv)) return Answer(1, TestDocument(305, 1));
    return ScriptedGemm(fs_, argv);
  });
  auto run = RunTune(fs_, runner, Options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kCheckFailed);
  EXPECT_EQ(run.error().message,
            "the defaults (the project as it is) failed: test-failed: 1 of 306 cases failed, "
            "first: gemm [7x33 fp32]: mismatch");
  EXPECT_EQ(runner.Children().size(), 4u) << "the defaults' build phase and test only";
  ASSERT_EQ(History().size(), 1u) << "the history keeps why";
}

TEST_F(TuneRunTest, NoGpuIsExit4AfterTheDefaultsBuild) {
  LockedRunner runner([this](const auto& argv, const auto&) {
    if (argv.at(3) == "test" && !BuildOnly(argv)) {
      return Answer(4, ErrorDocument("test", 4, {{"message", "no CUDA GPU is visible"}}));
    }
    return ScriptedGemm(fs_, argv);
  });
  auto run = RunTune(fs_, runner, Options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kEnvironment);
  EXPECT_NE(run.error().message.find("no CUDA GPU is visible"), std::string::npos);
  const auto children = runner.Children();
  ASSERT_EQ(children.size(), 4u);
  EXPECT_EQ(children[0].first, "build");
  EXPECT_EQ(children[1].first, "test --build-only") << "compiled without a GPU";
  EXPECT_EQ(children[2].first, "bench --build-only");
  EXPECT_EQ(children[3].first, "test");
  EXPECT_TRUE(History().empty()) << "no verdict on the defaults without a GPU";
}

// A GPU step's child killed by a signal (not a time limit, not Ctrl-C) is the GPU's or the
// host's failure, not the variant's: no verdict is recorded and the run ends with exit 4
// (a queue worker ends the same way, and its claim goes to another worker).
TEST_F(TuneRunTest, AKilledGpuStepEndsTheRunWithoutAVerdictOnTheVariant) {
  LockedRunner runner([this](const auto& argv, const auto&) {
    if (argv.at(3) == "bench" && !BuildOnly(argv)) return Answer(137, Json());
    return ScriptedGemm(fs_, argv);
  });
  auto run = RunTune(fs_, runner, Options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kEnvironment);
  EXPECT_EQ(run.error().message,
            "variant defaults was not judged: kbuild bench was killed by signal 9");
  EXPECT_NE(run.error().hint.find("not the variant's doing"), std::string::npos);
  EXPECT_TRUE(History().empty()) << "the defaults are judged again on --resume";
}

TEST_F(TuneRunTest, HostileResumeFoldersAreRefused) {
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  ASSERT_TRUE(fs_.Write("/elsewhere/tune-1/history.jsonl", "").ok());
  ASSERT_TRUE(fs_.Write("/p/results/tune-old/history.jsonl", "").ok());
  fs_.mem.PlantSymlink("/p/results/tune-link", "/elsewhere/tune-1");
  ASSERT_TRUE(fs_.Write("/p/results/tune-empty/notes.txt", "").ok());
  for (const char* given :
       {"/elsewhere/tune-1", "results/../../elsewhere/tune-1", "results/tune-link",
        "results/tune-empty", "results", "results/tune-old/variants", "build"}) {
    TuneOptions options = Options();
    options.resume = given;
    auto run = RunTune(fs_, runner, options);
    ASSERT_FALSE(run.ok()) << given;
    EXPECT_EQ(run.error().code, ExitCode::kUsage) << given;
    EXPECT_TRUE(run.error().message.starts_with("--resume ")) << run.error().message;
  }
  EXPECT_TRUE(runner.Children().empty());
  EXPECT_TRUE(ResumeTuneRunFolder(fs_, kProject, "results/tune-old").ok());
}

TEST_F(TuneRunTest, BadOptionsAndSpaceAreExit2) {
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  TuneOptions options = Options();
  options.strategy = "anneal";
  EXPECT_EQ(RunTune(fs_, runner, options).error().code, ExitCode::kUsage);
  ASSERT_TRUE(fs_.Remove(kProject / "build.toml").ok());
  EXPECT_EQ(RunTune(fs_, runner, Options()).error().message,
            "no build.toml in /p: not a kbuild project");
  ASSERT_TRUE(fs_.Write(kProject / "build.toml", "").ok());
  ASSERT_TRUE(fs_.Write(kProject / "kbuild.toml", "[tune.params]\nBLOCK = [64, \"x\"]\n").ok());
  auto run = RunTune(fs_, runner, Options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ExitCode::kUsage);
  EXPECT_TRUE(runner.Children().empty());
}

TEST_F(TuneRunTest, TimeLimitStartsNoNewVariant) {
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  double now = 0;
  TuneOptions options = Options();
  options.build_jobs = 1;
  options.time_limit_seconds = 10;
  options.seconds_now = [&now] { return now; };
  options.progress = [&now](const std::string&) { now += 6; };  // each line takes a while
  auto run = RunTune(fs_, runner, options);
  ASSERT_TRUE(run.ok()) << run.error().Located();
  EXPECT_TRUE(run->time_up);
  EXPECT_LT(History().size(), 5u);
  EXPECT_GE(History().size(), 1u);
}

TEST_F(TuneRunTest, EvolveStaysWithinTheBudget) {
  LockedRunner runner([this](const auto& argv, const auto&) { return ScriptedGemm(fs_, argv); });
  TuneOptions options = Options();
  options.strategy = "evolve";
  options.budget = 3;
  auto run = RunTune(fs_, runner, options);
  ASSERT_TRUE(run.ok()) << run.error().Located();
  EXPECT_EQ(History().size(), 4u);
}

}  // namespace
}  // namespace kb
