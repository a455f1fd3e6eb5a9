#include "core/tune_results.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * kKiB;

TuneEvaluation Done(const std::string& id, std::vector<TuneCaseTime> cases) {
  TuneEvaluation e;
  e.variant.id = id;
  e.variant.values = {{"BLOCK", "256"}, {"LAYOUT", "row_major"}};
  e.stage = TuneStage::kDone;
  e.tests = TuneTests::kFull;
  e.build_seconds = 12.5;
  e.test_seconds = 4.25;
  e.bench_seconds = 5.5;
  e.cases = std::move(cases);
  return e;
}

TuneEvaluation Failed(const std::string& id, TuneStage stage, const std::string& reason) {
  TuneEvaluation e;
  e.variant.id = id;
  e.variant.values = {{"BLOCK", "2048"}};
  e.stage = stage;
  e.reason = reason;
  return e;
}

// Two cases: a small one (32 KiB) and a large one (8 MiB).
std::vector<TuneCaseTime> Times(double small_us, double large_us) {
  return {{"op/small", small_us, 40, 32 * kKiB}, {"op/large", large_us, 80, 8 * kMiB}};
}

std::vector<std::string> RankedIds(const TuneRanking& r) {
  std::vector<std::string> ids;
  for (const auto& v : r.ranked) ids.push_back(v.id);
  return ids;
}

TEST(TuneRanking, GeomeanOverTheBaselinesCasesAndInvalidNeverWins) {
  const std::vector<TuneEvaluation> evaluations = {
      Done("v-base", Times(10, 100)),
      Failed("v-crash", TuneStage::kTestFailed, "illegal memory access"),
      Done("v-fast", Times(5, 50)),    // 2x, 2x
      Done("v-mixed", Times(5, 200)),  // 2x, 0.5x
      Failed("v-spill", TuneStage::kSpills, "spills 64 bytes"),
  };
  auto r = RankVariants(evaluations, "v-base");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(RankedIds(*r), (std::vector<std::string>{"v-fast", "v-base", "v-mixed"}));
  EXPECT_DOUBLE_EQ(r->ranked[0].score, 2.0);
  EXPECT_DOUBLE_EQ(r->ranked[2].score, 1.0);
  EXPECT_EQ(r->ranked[2].worst_case, "op/large");
  EXPECT_DOUBLE_EQ(r->ranked[2].worst_speedup, 0.5);
  ASSERT_EQ(r->unranked.size(), 2u);
  EXPECT_EQ(r->unranked[0].id, "v-crash");
  EXPECT_EQ(r->unranked[0].reason, "test-failed: illegal memory access");
  EXPECT_EQ(r->unranked[1].reason, "spills: spills 64 bytes");
}

// An invalid variant with times faster than all (a kernel that skipped work) stays out.
TEST(TuneRanking, NotFullyTestedVariantsAreScoredButNeverRanked) {
  TuneEvaluation quick = Done("v-quick", Times(2, 20));  // 5x: the fastest
  quick.tests = TuneTests::kNone;
  TuneEvaluation filtered = Done("v-filtered", Times(5, 50));
  filtered.tests = TuneTests::kFiltered;
  const std::vector<TuneEvaluation> evaluations = {Done("v-base", Times(10, 100)), quick, filtered,
                                                   Done("v-full", Times(10, 50))};
  auto r = RankVariants(evaluations, "v-base");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(RankedIds(*r), (std::vector<std::string>{"v-full", "v-base"}));
  ASSERT_EQ(r->screened.size(), 2u);
  EXPECT_EQ(r->screened[0].id, "v-quick");
  EXPECT_DOUBLE_EQ(r->screened[0].score, 5.0);
  EXPECT_EQ(r->screened[1].id, "v-filtered");
  std::vector<std::string> all;
  for (const auto& v : ScoredByRank(*r)) all.push_back(v.id);
  EXPECT_EQ(all, (std::vector<std::string>{"v-quick", "v-filtered", "v-full", "v-base"}));
  auto best = BestPerBucket(evaluations, "v-base");
  ASSERT_TRUE(best.ok());
  for (const auto& b : *best) EXPECT_NE(b.id, "v-quick") << "only fully tested ones are best";
}

TEST(TuneRanking, InvalidWithFastTimesStaysOut) {
  TuneEvaluation wrong = Failed("v-wrong", TuneStage::kTestFailed, "mismatch at [3]");
  wrong.cases = Times(0.1, 0.1);
  auto r = RankVariants({Done("v-base", Times(10, 100)), wrong}, "v-base");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(RankedIds(*r), (std::vector<std::string>{"v-base"}));
}

TEST(TuneRanking, EqualScoresAreOrderedById) {
  auto r = RankVariants(
      {Done("v-c", Times(10, 100)), Done("v-a", Times(10, 100)), Done("v-b", Times(10, 100))},
      "v-c");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(RankedIds(*r), (std::vector<std::string>{"v-a", "v-b", "v-c"}));
}

TEST(TuneRanking, MissingOrUntimedCaseExcludesWithReason) {
  auto r = RankVariants(
      {Done("v-base", Times(10, 100)), Done("v-short", {{"op/small", 1, 90, 32 * kKiB}}),
       Done("v-zero", Times(0, 1)), Done("v-extra", Times(10, 100))},
      "v-base");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(RankedIds(*r), (std::vector<std::string>{"v-base", "v-extra"}));
  ASSERT_EQ(r->unranked.size(), 2u);
  EXPECT_EQ(r->unranked[0].reason, "missing case op/large");
  EXPECT_EQ(r->unranked[1].reason, "no time for case op/small");
}

TEST(TuneRanking, BaselineMustBeValid) {
  const std::vector<TuneEvaluation> evaluations = {
      Failed("v-default", TuneStage::kBuildFailed, "error: x"), Done("v-ok", Times(1, 1))};
  EXPECT_FALSE(RankVariants(evaluations, "v-default").ok());
  EXPECT_FALSE(RankVariants(evaluations, "v-unknown").ok());
  EXPECT_EQ(ChooseBaselineId(evaluations, "v-default"), "v-ok");
  EXPECT_EQ(ChooseBaselineId(evaluations, "v-ok"), "v-ok");
  EXPECT_EQ(ChooseBaselineId({evaluations[0]}, "v-default"), "");
}

TEST(TuneBuckets, EdgesArePowersOfFourFrom64KiB) {
  EXPECT_EQ(ShapeBucketOf(1).label, "<= 64 KiB");
  EXPECT_EQ(ShapeBucketOf(64 * kKiB).label, "<= 64 KiB");
  EXPECT_EQ(ShapeBucketOf(64 * kKiB + 1).label, "<= 256 KiB");
  EXPECT_EQ(ShapeBucketOf(64 * kKiB + 1).max_bytes, 256 * 1024);
  EXPECT_EQ(ShapeBucketOf(1 * kMiB).label, "<= 1 MiB");
  EXPECT_EQ(ShapeBucketOf(1 * kMiB + 1).label, "<= 4 MiB");
  EXPECT_EQ(ShapeBucketOf(256 * kMiB).label, "<= 256 MiB");
  EXPECT_EQ(ShapeBucketOf(1024 * kMiB).label, "<= 1 GiB");
  EXPECT_EQ(ShapeBucketOf(1024 * kMiB).max_bytes, 1LL << 30);
  EXPECT_EQ(ShapeBucketOf(1024 * kMiB + 1).label, "larger");
  EXPECT_EQ(ShapeBucketOf(1024 * kMiB + 1).max_bytes, -1);
}

TEST(TuneBuckets, BestPerBucketByTheBucketsCases) {
  const std::vector<TuneEvaluation> evaluations = {
      Done("v-base", Times(10, 100)),
      Done("v-small", Times(2, 150)),  // wins small, loses large; overall 1.83x
      Done("v-large", Times(8, 50)),   // wins large
      Done("v-tie", Times(8, 50)),     // same as v-large: the id decides
      Failed("v-bad", TuneStage::kBenchFailed, "timeout"),
  };
  auto best = BestPerBucket(evaluations, "v-base");
  ASSERT_TRUE(best.ok()) << best.error().message;
  ASSERT_EQ(best->size(), 2u);
  EXPECT_EQ((*best)[0].bucket.label, "<= 64 KiB");
  EXPECT_EQ((*best)[0].id, "v-small");
  EXPECT_DOUBLE_EQ((*best)[0].score, 5.0);
  EXPECT_EQ((*best)[0].cases, 1);
  EXPECT_EQ((*best)[1].bucket.label, "<= 16 MiB");
  EXPECT_EQ((*best)[1].bucket.max_bytes, 16LL << 20);
  EXPECT_EQ((*best)[1].id, "v-large");
  EXPECT_DOUBLE_EQ((*best)[1].score, 2.0);
}

TEST(TuneBuckets, CasesOfUnknownBytesHaveNoBucket) {
  auto best = BestPerBucket({Done("v-base", {{"op/x", 10, 0, 0}})}, "v-base");
  ASSERT_TRUE(best.ok());
  EXPECT_TRUE(best->empty());
}

TEST(TuneHistory, RoundTripKeepsEveryField) {
  MemoryFileSystem fs;
  TuneEvaluation done = Done("v-1", Times(10.25, 100.5));
  done.spill_bytes = 8;
  TuneEvaluation failed = Failed("v-2", TuneStage::kBuildFailed, "error: \"x\" \xff\n");
  ASSERT_TRUE(AppendHistory(fs, "/r/history.jsonl", done).ok());
  ASSERT_TRUE(AppendHistory(fs, "/r/history.jsonl", failed).ok());
  EXPECT_EQ(std::count(fs.files().at("/r/history.jsonl").begin(),
                       fs.files().at("/r/history.jsonl").end(), '\n'),
            2);
  auto h = ReadHistory(fs, "/r/history.jsonl");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_TRUE(h->warnings.empty());
  ASSERT_EQ(h->evaluations.size(), 2u);
  const TuneEvaluation& a = h->evaluations[0];
  EXPECT_EQ(a.variant.id, "v-1");
  EXPECT_EQ(a.variant.values, done.variant.values);  // order kept: BLOCK before LAYOUT
  EXPECT_EQ(a.stage, TuneStage::kDone);
  EXPECT_EQ(a.spill_bytes, 8);
  EXPECT_DOUBLE_EQ(a.build_seconds, 12.5);
  EXPECT_DOUBLE_EQ(a.test_seconds, 4.25);
  EXPECT_DOUBLE_EQ(a.bench_seconds, 5.5);
  ASSERT_EQ(a.cases.size(), 2u);
  EXPECT_EQ(a.cases[1].name, "op/large");
  EXPECT_DOUBLE_EQ(a.cases[1].median_us, 100.5);
  EXPECT_DOUBLE_EQ(a.cases[1].percent_of_peak, 80);
  EXPECT_DOUBLE_EQ(a.cases[1].bytes, 8 * kMiB);
  EXPECT_EQ(h->evaluations[1].stage, TuneStage::kBuildFailed);
  EXPECT_TRUE(h->evaluations[1].reason.starts_with("error: \"x\" "));
}

TEST(TuneHistory, TestsAreRecordedAndOlderLinesReadAsFullyTested) {
  MemoryFileSystem fs;
  TuneEvaluation screened = Done("v-1", Times(1, 2));
  screened.tests = TuneTests::kFiltered;
  ASSERT_TRUE(AppendHistory(fs, "/r/history.jsonl", screened).ok());
  EXPECT_NE(fs.files().at("/r/history.jsonl").find("\"tests\":\"filter\""), std::string::npos);
  // A line from before finalists: no "tests"; every variant then ran the full suite.
  ASSERT_TRUE(fs.Write("/r/old.jsonl",
                       R"({"id": "v-old", "params": {}, "stage": "done", "reason": "", )"
                       R"("spill_bytes": 0, "build_seconds": 1, "cases": []})"
                       "\n")
                  .ok());
  auto old = ReadHistory(fs, "/r/old.jsonl");
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->evaluations.at(0).tests, TuneTests::kFull);
  EXPECT_EQ(old->evaluations.at(0).bench_seconds, 0) << "older lines have no bench_seconds";
  auto now = ReadHistory(fs, "/r/history.jsonl");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->evaluations.at(0).tests, TuneTests::kFiltered);
  ASSERT_TRUE(
      fs.Write("/r/bad.jsonl",
               R"({"id": "v", "params": {}, "stage": "done", "reason": "", "tests": "most", )"
               R"("spill_bytes": 0, "build_seconds": 1, "cases": []})"
               "\n" +
                   HistoryLine(Done("v-2", Times(1, 1))) + "\n")
          .ok());
  auto bad = ReadHistory(fs, "/r/bad.jsonl");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "tests: expected one of none, filter, full");
}

TEST(TuneHistory, AbsentFileIsEmpty) {
  MemoryFileSystem fs;
  auto h = ReadHistory(fs, "/r/history.jsonl");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->evaluations.empty());
}

TEST(TuneHistory, LaterLineForAnIdReplacesTheEarlierInPlace) {
  MemoryFileSystem fs;
  ASSERT_TRUE(AppendHistory(fs, "/h", Failed("v-1", TuneStage::kPending, "")).ok());
  ASSERT_TRUE(AppendHistory(fs, "/h", Done("v-2", Times(1, 1))).ok());
  ASSERT_TRUE(AppendHistory(fs, "/h", Done("v-1", Times(2, 2))).ok());
  auto h = ReadHistory(fs, "/h");
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->evaluations.size(), 2u);
  EXPECT_EQ(h->evaluations[0].variant.id, "v-1");
  EXPECT_EQ(h->evaluations[0].stage, TuneStage::kDone);
  EXPECT_EQ(h->evaluations[1].variant.id, "v-2");
}

// A kill in the middle of a write leaves the last line cut short: skipped with a warning,
// and the next append drops it instead of gluing a record to it.
TEST(TuneHistory, TruncatedLastLineIsSkippedAndDroppedOnAppend) {
  MemoryFileSystem fs;
  const std::string whole = HistoryLine(Done("v-1", Times(1, 1))) + "\n";
  const std::string cut = HistoryLine(Done("v-2", Times(1, 1))).substr(0, 40);
  ASSERT_TRUE(fs.Write("/h", whole + cut).ok());
  auto h = ReadHistory(fs, "/h");
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->evaluations.size(), 1u);
  ASSERT_EQ(h->warnings.size(), 1u);
  EXPECT_NE(h->warnings[0].find("/h:2: skipped the last line"), std::string::npos);

  ASSERT_TRUE(AppendHistory(fs, "/h", Done("v-3", Times(1, 1))).ok());
  h = ReadHistory(fs, "/h");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_TRUE(h->warnings.empty());
  ASSERT_EQ(h->evaluations.size(), 2u);
  EXPECT_EQ(h->evaluations[1].variant.id, "v-3");
}

TEST(TuneHistory, GarbledMiddleLineIsAnErrorNamingTheLine) {
  MemoryFileSystem fs;
  const std::string good = HistoryLine(Done("v-1", Times(1, 1))) + "\n";
  ASSERT_TRUE(fs.Write("/h", good + "{not json\n" + good).ok());
  auto h = ReadHistory(fs, "/h");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().code, ExitCode::kUsage);
  EXPECT_EQ(h.error().Located(), "/h:2: not valid JSON");
  EXPECT_FALSE(h.error().hint.empty());
}

TEST(TuneHistory, WrongTypesAreErrorsNamingTheKey) {
  const std::string good = HistoryLine(Done("v-1", Times(1, 1))) + "\n";
  const std::pair<std::string, std::string> cases[] = {
      {"[1, 2]", "expected a JSON object"},
      {R"({"id": 3})", "id: expected a string"},
      {R"({"id": "v", "params": []})", "params: expected an object"},
      {R"({"id": "v", "params": {"B": 1}})", "params.B: expected a string"},
      {R"({"id": "v", "params": {}, "stage": "won"})", "stage: expected one of"},
      {R"({"id": "v", "params": {}, "stage": "done", "reason": "", "spill_bytes": -1})",
       "spill_bytes: expected a number >= 0"},
      {R"({"id": "v", "params": {}, "stage": "done", "reason": "", "spill_bytes": 1e300})",
       "spill_bytes: too large"},
      {R"({"id": "v", "params": {}, "stage": "done", "reason": "", "spill_bytes": 0,
           "build_seconds": 1, "cases": [{"name": "a", "median_us": "fast"}]})",
       "cases[0].median_us: expected a number >= 0"},
      {R"({"id": "v", "params": {}, "stage": "done", "reason": "", "spill_bytes": 0,
           "build_seconds": 1, "cases": {}})",
       "cases: expected an array"},
  };
  for (const auto& [line, message] : cases) {
    std::string one_line = line;
    std::replace(one_line.begin(), one_line.end(), '\n', ' ');
    MemoryFileSystem fs;
    ASSERT_TRUE(fs.Write("/h", one_line + "\n" + good).ok());
    auto h = ReadHistory(fs, "/h");
    ASSERT_FALSE(h.ok()) << line;
    EXPECT_EQ(h.error().line, 1);
    EXPECT_TRUE(h.error().message.starts_with(message)) << h.error().message;
  }
}

// Deep nesting and a huge key are refused with a short message, not a crash.
TEST(TuneHistory, HostileLinesGiveShortErrors) {
  const std::string good = HistoryLine(Done("v-1", Times(1, 1))) + "\n";
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string huge_key =
      R"({"id": "v", "params": {")" + std::string(100000, 'K') + R"(": 1}})";
  for (const std::string& line : {deep, huge_key}) {
    MemoryFileSystem fs;
    ASSERT_TRUE(fs.Write("/h", good + line + "\n" + good).ok());
    auto h = ReadHistory(fs, "/h");
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.error().line, 2);
    EXPECT_LT(h.error().message.size(), 500u);
  }
}

// A resumed run builds variants/<id>/ from these lines and passes the values
// to the compiler: an id that leaves the run folder, or a value --define
// refuses, is an error naming the line, never a folder or a command line.
TEST(TuneHistory, IdsThatAreNotFolderNamesAndValuesDefineRefusesAreErrors) {
  TuneEvaluation escapes = Done("../../../victim/evil", Times(1, 1));
  TuneEvaluation long_value = Done("v-2", Times(1, 1));
  long_value.variant.values = {{"BLOCK", std::string(80, 'V')}};
  TuneEvaluation two_tokens = Done("v-3", Times(1, 1));
  two_tokens.variant.values = {{"BLOCK", "1 -DEVIL=1"}};
  for (const auto& [line, key] : {std::pair{escapes, "id"}, std::pair{long_value, "params"},
                                  std::pair{two_tokens, "params"}}) {
    MemoryFileSystem fs;
    const std::string good = HistoryLine(Done("v-1", Times(1, 1))) + "\n";
    // Not the last line, which an interrupted run may leave torn (skipped).
    ASSERT_TRUE(fs.Write("/h", HistoryLine(line) + "\n" + good).ok());
    auto h = ReadHistory(fs, "/h");
    ASSERT_FALSE(h.ok()) << key;
    EXPECT_EQ(h.error().code, ExitCode::kUsage);
    EXPECT_EQ(h.error().line, 1);
    EXPECT_TRUE(h.error().message.starts_with(std::string(key) + ": ")) << h.error().message;
  }
}

TEST(TuneHistory, RefusesWhatIsNotARegularFileOrTooLarge) {
  MemoryFileSystem fs;
  fs.PlantSpecialFile("/fifo");
  EXPECT_FALSE(ReadHistory(fs, "/fifo").ok());
  fs.PlantSymlink("/link", "/etc/passwd");
  EXPECT_FALSE(ReadHistory(fs, "/link").ok());
  EXPECT_FALSE(AppendHistory(fs, "/link", Done("v", Times(1, 1))).ok());
  ASSERT_TRUE(fs.Write("/big", std::string(kMaxResultsBytes + 1, '\n')).ok());
  EXPECT_FALSE(ReadHistory(fs, "/big").ok());
}

}  // namespace
}  // namespace kb
