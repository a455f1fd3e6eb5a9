// kbuild tune's finalists: every variant benchmarked (its values checked by
// the benchmark), the full test suite on the best ones only until
// --full-tests passed, a failing finalist replaced by the next best,
// --full-tests all, --resume among the finalists, the [tune] test-filter and
// bench-filter, and the time-left estimate of the progress lines.
#include "core/tune_finalists.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/tune_runner.h"
#include "core/tune_space.h"
#include "core/tune_workspace.h"
#include "tune_fakes.h"

namespace kb {
namespace {

using namespace tune_fakes;

const fs::path kProject = "/p";
const fs::path kRun = "/p/results/tune-20261201-140000";

constexpr const char* kSpace = R"([tune]
[tune.params]
BLOCK = [64, 128, 256]
VECS = [1, 2]
)";

// Every variant builds; BLOCK=256 VECS=2 is the fastest and fails a test (any
// subset), the others pass. Medians (us): defaults 100, then by values.
ProcessResult Scripted(const std::vector<std::string>& argv) {
  const std::string command = argv.at(3);
  const Values v = LockedRunner::ValuesOf(argv);
  const std::string key = v.empty() ? "defaults" : v.at("BLOCK") + "/" + v.at("VECS");
  if (BuildOnly(argv)) return Answer(0, BuildOnlyDocument(command));
  if (command == "build") return Answer(0, {{"command", "build"}, {"ok", true}, {"seconds", 3}});
  if (command == "test") return Answer(key == "256/2" ? 1 : 0, TestDocument(306, key == "256/2"));
  static const std::map<std::string, double> kMedian = {
      {"defaults", 100}, {"256/2", 50}, {"256/1", 60}, {"128/2", 70},
      {"128/1", 80},     {"64/2", 90},  {"64/1", 95}};
  return Answer(0, BenchDocument(kMedian.at(key)));
}

class TuneFinalistsTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteProject(kSpace); }

  void WriteProject(const std::string& kbuild_toml) {
    ASSERT_TRUE(fs_.Write(kProject / "kbuild.toml", kbuild_toml).ok());
    ASSERT_TRUE(fs_.Write(kProject / "build.toml", "[general]\nname = \"gemm\"\n").ok());
    auto space = ParseTuneSpace(kbuild_toml, "kbuild.toml");
    ASSERT_TRUE(space.ok());
    for (const auto& v : GridVariants(*space, 100)) ids_[TuneValuesText(v)] = v.id;
  }

  TuneOptions Options() {
    TuneOptions o;
    o.project_dir = kProject;
    o.kbuild_exe = "/k";
    o.stamp = "20261201-140000";
    o.build_jobs = 1;
    o.full_tests = 2;
    o.progress = [this](const std::string& line) { progress_.push_back(line); };
    return o;
  }

  std::string Id(const std::string& values) { return ids_.at(values); }

  std::map<std::string, TuneEvaluation> History() {
    std::map<std::string, TuneEvaluation> by_id;
    auto history = ReadHistory(fs_, kRun / kTuneHistoryFile);
    EXPECT_TRUE(history.ok());
    if (history.ok()) {
      for (const auto& e : history->evaluations) by_id[e.variant.id] = e;
    }
    return by_id;
  }

  static std::vector<Values> Tested(LockedRunner& runner) {
    std::vector<Values> tested;
    for (const auto& [command, values] : runner.Children()) {
      if (command == "test") tested.push_back(values);
    }
    return tested;
  }

  static std::vector<std::string> Ids(const std::vector<RankedVariant>& variants) {
    std::vector<std::string> ids;
    for (const auto& v : variants) ids.push_back(v.id);
    return ids;
  }

  bool Printed(const std::string& line) const {
    return std::find(progress_.begin(), progress_.end(), line) != progress_.end();
  }

  LockedFileSystem fs_;
  std::map<std::string, std::string> ids_;
  std::vector<std::string> progress_;
};

TEST_F(TuneFinalistsTest, BestAreFullyTestedAndAFailingOneIsReplacedByTheNext) {
  LockedRunner runner([](const auto& argv, const auto&) { return Scripted(argv); });
  auto run = RunTune(fs_, runner, Options());
  ASSERT_TRUE(run.ok()) << run.error().Located();

  // The defaults' suite, then the finalists best first: 256/2 fails, 256/1 and 128/2 pass.
  EXPECT_EQ(Tested(runner), (std::vector<Values>{{},
                                                 {{"BLOCK", "256"}, {"VECS", "2"}},
                                                 {{"BLOCK", "256"}, {"VECS", "1"}},
                                                 {{"BLOCK", "128"}, {"VECS", "2"}}}));
  auto history = History();
  const TuneEvaluation& failed = history[Id("BLOCK=256 VECS=2")];
  EXPECT_EQ(failed.stage, TuneStage::kTestFailed);
  EXPECT_EQ(failed.reason, "full tests: 1 of 307 cases failed, first: gemm [7x33 fp32]: mismatch");
  EXPECT_EQ(failed.cases.size(), 1u) << "its timings are kept";
  EXPECT_EQ(history[Id("BLOCK=256 VECS=1")].tests, TuneTests::kFull);
  EXPECT_EQ(history[Id("BLOCK=128 VECS=1")].tests, TuneTests::kNone);
  EXPECT_EQ(history["defaults"].tests, TuneTests::kFull);

  EXPECT_EQ(Ids(run->ranking.ranked),
            (std::vector<std::string>{Id("BLOCK=256 VECS=1"), Id("BLOCK=128 VECS=2"), "defaults"}));
  EXPECT_EQ(Ids(run->ranking.screened),
            (std::vector<std::string>{Id("BLOCK=128 VECS=1"), Id("BLOCK=64 VECS=2"),
                                      Id("BLOCK=64 VECS=1")}));
  ASSERT_EQ(run->best.size(), 1u);
  EXPECT_EQ(run->best[0].id, Id("BLOCK=256 VECS=1"));
  EXPECT_EQ(run->finalists_tested_now, 3);
  auto header = fs_.Read(kRun / "tuned_config.h");
  ASSERT_TRUE(header.ok());
  EXPECT_NE(header->find("X(268435456LL, 256, 1)"), std::string::npos) << *header;
  auto summary = fs_.Read(kRun / "summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_NE(summary->find("3 benchmarked, not fully tested"), std::string::npos) << *summary;

  const std::string first = Id("BLOCK=256 VECS=2");
  EXPECT_TRUE(
      Printed("tune: finalist " + first + " BLOCK=256 VECS=2: full tests (0 of 2 passed so far)"))
      << ::testing::PrintToString(progress_);
  EXPECT_TRUE(Printed("tune: finalist " + first +
                      ": invalid, full tests: 1 of 307 cases failed, first: gemm [7x33 fp32]: "
                      "mismatch; the next best is tested in its place"));
  EXPECT_TRUE(Printed("tune: finalist " + Id("BLOCK=128 VECS=2") + ": 306 tests passed"));
}

TEST_F(TuneFinalistsTest, AllTestsEveryVariantBeforeItsBenchmark) {
  LockedRunner runner([](const auto& argv, const auto&) { return Scripted(argv); });
  TuneOptions options = Options();
  options.full_tests = kTuneFullTestsAll;
  auto run = RunTune(fs_, runner, options);
  ASSERT_TRUE(run.ok()) << run.error().Located();
  const auto children = runner.Children();
  // The next build overlaps a variant's GPU steps; the step before its benchmark is its test.
  for (size_t i = 0; i < children.size(); ++i) {
    if (children[i].first != "bench") continue;
    size_t before = i - 1;
    while (before > 0 && (children[before].first == "build" ||
                          children[before].first.ends_with(" --build-only"))) {
      --before;
    }
    EXPECT_EQ(children[before].first, "test") << "each benchmark right after its full tests";
    EXPECT_EQ(children[before].second, children[i].second);
  }
  EXPECT_EQ(Tested(runner).size(), 7u);
  EXPECT_EQ(run->finalists_tested_now, 0) << "nothing left for a finalist phase";
  EXPECT_TRUE(run->ranking.screened.empty());
  EXPECT_EQ(run->ranking.ranked.size(), 6u) << "all but the failing one";
  EXPECT_EQ(History()[Id("BLOCK=256 VECS=2")].cases.size(), 0u) << "never benchmarked";
}

TEST_F(TuneFinalistsTest, ResumeContinuesAmongTheFinalists) {
  int tests = 0;
  LockedRunner stopping([&](const auto& argv, const auto&) {
    if (argv.at(3) == "test" && !BuildOnly(argv) && ++tests == 3) {  // the second finalist's
      ProcessResult r;
      r.interrupted = true;
      r.exit_code = 130;
      return r;
    }
    return Scripted(argv);
  });
  TuneOptions options = Options();
  auto first = RunTune(fs_, stopping, options);
  ASSERT_TRUE(first.ok()) << first.error().Located();
  EXPECT_TRUE(first->stopped);
  EXPECT_EQ(History()[Id("BLOCK=256 VECS=2")].stage, TuneStage::kTestFailed);
  EXPECT_EQ(History()[Id("BLOCK=256 VECS=1")].tests, TuneTests::kNone);

  LockedRunner runner([](const auto& argv, const auto&) { return Scripted(argv); });
  options.resume = "results/tune-20261201-140000";
  auto second = RunTune(fs_, runner, options);
  ASSERT_TRUE(second.ok()) << second.error().Located();
  EXPECT_FALSE(second->stopped);
  EXPECT_EQ(second->evaluated_now, 0);
  EXPECT_EQ(second->finalists_tested_now, 2);
  const auto children = runner.Children();
  EXPECT_TRUE(std::all_of(children.begin(), children.end(), [](const auto& c) {
    return c.first == "test";
  })) << "nothing built or benchmarked again";
  EXPECT_EQ(Tested(runner), (std::vector<Values>{{{"BLOCK", "256"}, {"VECS", "1"}},
                                                 {{"BLOCK", "128"}, {"VECS", "2"}}}));
  EXPECT_EQ(second->best.at(0).id, Id("BLOCK=256 VECS=1"));
}

TEST_F(TuneFinalistsTest, TestFilterRunsBeforeEachBenchmarkAndBenchFilterPicksTheCases) {
  WriteProject(std::string(kSpace).replace(7, 0,
                                           "bench-filter = \"^gemm/4096\"\n"
                                           "test-filter = \"Gemm.Odd*\"\n"));
  LockedRunner runner([](const auto& argv, const auto&) { return Scripted(argv); });
  auto run = RunTune(fs_, runner, Options());
  ASSERT_TRUE(run.ok()) << run.error().Located();
  // The GPU steps, in order (the build phase runs ahead of them on other threads).
  auto gpu_steps = [](LockedRunner& r) {
    std::vector<std::vector<std::string>> steps;
    for (const auto& argv : r.Calls()) {
      if (argv.at(3) != "build" && !BuildOnly(argv)) steps.push_back(argv);
    }
    return steps;
  };
  const auto calls = gpu_steps(runner);
  auto tail = [](const std::vector<std::string>& argv, size_t n) {
    return std::vector<std::string>(argv.end() - static_cast<long>(n), argv.end());
  };
  ASSERT_EQ(calls.at(0).at(3), "test");
  EXPECT_EQ(tail(calls[0], 1), (std::vector<std::string>{"--json"})) << "the defaults: full";
  EXPECT_EQ(tail(calls[1], 4),
            (std::vector<std::string>{"--no-baselines", "--json", "--filter", "^gemm/4096"}));
  EXPECT_EQ(calls.at(2).at(3), "test");
  EXPECT_EQ(tail(calls[2], 3), (std::vector<std::string>{"--json", "--filter", "Gemm.Odd*"}));
  auto history = History();
  EXPECT_EQ(history[Id("BLOCK=64 VECS=1")].tests, TuneTests::kFiltered);
  EXPECT_EQ(history[Id("BLOCK=256 VECS=2")].stage, TuneStage::kTestFailed)
      << "caught by the quick tests, never benchmarked";
  EXPECT_TRUE(history[Id("BLOCK=256 VECS=2")].cases.empty());

  // The command line wins: no quick tests, another bench filter.
  LockedRunner plain([](const auto& argv, const auto&) { return Scripted(argv); });
  TuneOptions options = Options();
  options.stamp = "20261201-150000";
  options.test_filter = "";
  options.filter = "1x1";
  ASSERT_TRUE(RunTune(fs_, plain, options).ok());
  const auto plain_calls = gpu_steps(plain);
  ASSERT_EQ(plain_calls.at(1).at(3), "bench");
  EXPECT_EQ(plain_calls.at(2).at(3), "bench") << "no test before a variant's benchmark";
  EXPECT_EQ(tail(plain_calls[2], 2), (std::vector<std::string>{"--filter", "1x1"}));
}

TEST_F(TuneFinalistsTest, ProgressLinesEstimateTheTimeLeft) {
  LockedRunner runner([](const auto& argv, const auto&) { return Scripted(argv); });
  double now = 0;
  TuneOptions options = Options();
  options.seconds_now = [&now] { return now; };
  options.progress = [&](const std::string& line) {
    progress_.push_back(line);
    now += 10;  // each recorded variant takes 10 s
  };
  ASSERT_TRUE(RunTune(fs_, runner, options).ok());
  // [2/6]: 10 s for 2 variants since the search started, 4 left.
  EXPECT_TRUE(Printed("tune: [2/6] " + Id("BLOCK=64 VECS=2") +
                      " BLOCK=64 VECS=2: built 6.0 s, geomean 1.11x vs defaults, ~20 s left"))
      << ::testing::PrintToString(progress_);
  EXPECT_TRUE(Printed("tune: [6/6] " + Id("BLOCK=256 VECS=2") +
                      " BLOCK=256 VECS=2: built 6.0 s, geomean 2.00x vs defaults"))
      << "nothing left: no estimate";
}

TEST(TuneFinalists, NextFinalistWalksTheScoresBestFirst) {
  TuneRanking ranking;
  ranking.ranked = {{"v-b", 1.5, "", 1}, {"defaults", 1, "", 1}};
  ranking.screened = {{"v-a", 2, "", 1}, {"v-c", 1.2, "", 1}};
  EXPECT_EQ(NextFinalist(ranking, 3, "defaults"), "v-a");
  ranking.ranked.push_back({"v-a", 2, "", 1});
  ranking.screened.erase(ranking.screened.begin());
  EXPECT_EQ(NextFinalist(ranking, 2, "defaults"), std::nullopt) << "v-a and v-b passed";
  EXPECT_EQ(NextFinalist(ranking, 3, "defaults"), "v-c");
  EXPECT_EQ(NextFinalist(ranking, kTuneFullTestsAll, "defaults"), "v-c");
  EXPECT_EQ(NextFinalist(ranking, 0, "defaults"), std::nullopt);
  EXPECT_EQ(FullyTestedCount(ranking, "defaults"), 2u);
}

// After the N best overall, the best of each shape bucket among the benchmarked variants
// is tested too: tuned_config.h may only pick fully tested ones.
TEST(TuneFinalists, NextFinalistThenTheLeaderOfEachBucket) {
  TuneRanking ranking;
  ranking.ranked = {{"v-b", 1.5, "", 1}, {"defaults", 1, "", 1}};
  ranking.screened = {{"v-small", 1.2, "", 1}};
  const std::vector<BucketBest> leaders = {{ShapeBucketOf(1000), "v-small", 1.9, 1},
                                           {ShapeBucketOf(1e8), "defaults", 1, 1},
                                           {ShapeBucketOf(1e9), "v-b", 1.7, 1}};
  EXPECT_EQ(NextFinalist(ranking, 1, "defaults", leaders), "v-small");
  EXPECT_EQ(NextFinalist(ranking, 1, "defaults"), std::nullopt) << "no leaders given";
  EXPECT_EQ(NextFinalist(ranking, 0, "defaults", leaders), std::nullopt) << "0: none at all";
  // Not when the bucket's best fully tested variant is within the noise of the leader.
  const std::vector<BucketBest> tested = {{ShapeBucketOf(1000), "v-b", 1.87, 1}};
  EXPECT_EQ(NextFinalist(ranking, 1, "defaults", leaders, tested), std::nullopt)
      << "1.9x is within 2% of 1.87x";
  const std::vector<BucketBest> slower = {{ShapeBucketOf(1000), "v-b", 1.8, 1}};
  EXPECT_EQ(NextFinalist(ranking, 1, "defaults", leaders, slower), "v-small");
  ranking.ranked.push_back({"v-small", 1.2, "", 1});
  ranking.screened.clear();
  EXPECT_EQ(NextFinalist(ranking, 1, "defaults", leaders), std::nullopt);
}

TEST(TuneFinalists, FullTestsIsACountOrAll) {
  EXPECT_EQ(*ParseFullTests("all"), kTuneFullTestsAll);
  EXPECT_EQ(*ParseFullTests("3"), 3u);
  EXPECT_EQ(*ParseFullTests("0"), 0u);
  for (const char* bad : {"", "-1", "three", "3x", "10001", "99999999999"}) {
    auto parsed = ParseFullTests(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code, ExitCode::kUsage);
  }
  EXPECT_EQ(ParseFullTests("All").error().message,
            "--full-tests must be 'all' or a count from 0 to 10000, got 'All'");
}

TEST(TuneFinalists, TimeLeftText) {
  EXPECT_EQ(TuneTimeLeftText(0), "~0 s left");
  EXPECT_EQ(TuneTimeLeftText(44.6), "~45 s left");
  EXPECT_EQ(TuneTimeLeftText(89), "~89 s left");
  EXPECT_EQ(TuneTimeLeftText(90), "~2 min left");
  EXPECT_EQ(TuneTimeLeftText(725), "~12 min left");
  EXPECT_EQ(TuneTimeLeftText(5399), "~1 h 30 min left");
  EXPECT_EQ(TuneTimeLeftText(7530), "~2 h 06 min left");
  EXPECT_EQ(TuneTimeLeftText(-5), "~0 s left");
}

}  // namespace
}  // namespace kb
