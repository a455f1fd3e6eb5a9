#include "core/tune_render.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/process.h"

namespace kb {
namespace {

constexpr double kMiB = 1024 * 1024;

TuneEvaluation Evaluation(const std::string& id, const std::string& block, TuneStage stage,
                          double small_us, double large_us) {
  TuneEvaluation e;
  e.variant.id = id;
  e.variant.values = {{"BLOCK", block}, {"LAYOUT", "row_major"}};
  e.stage = stage;
  e.tests = TuneTests::kFull;
  if (stage == TuneStage::kDone) {
    e.cases = {{"op/small<f16>", small_us, 41, 0.01 * kMiB}, {"op/large", large_us, 96, 8 * kMiB}};
  }
  return e;
}

struct TuneRun {
  std::vector<TuneEvaluation> evaluations;
  TuneRanking ranking;
  std::vector<BucketBest> best;
};

TuneRun SampleRun() {
  TuneRun run;
  run.evaluations = {
      Evaluation("v-base", "256", TuneStage::kDone, 10, 100),
      Evaluation("v-broken", "4096", TuneStage::kBuildFailed, 0, 0),
      Evaluation("v-small", "128", TuneStage::kDone, 5, 120),
      Evaluation("v-large", "512", TuneStage::kDone, 12, 50),
  };
  run.evaluations[1].reason = "error: <too many> & \"threads\" | 4096";
  run.ranking = *RankVariants(run.evaluations, "v-base");
  run.best = *BestPerBucket(run.evaluations, "v-base");
  return run;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TuneSummary, RanksThenInvalidWithCountsAndBuckets) {
  const TuneRun run = SampleRun();
  const std::string md =
      TuneSummaryMarkdown("tune-2026-12-01T14-25-01", run.evaluations, run.ranking, run.best);
  EXPECT_TRUE(md.starts_with("# tune-2026-12-01T14-25-01\n")) << md;
  EXPECT_NE(md.find("4 variants: 3 valid (3 ranked), 1 invalid (build-failed 1), 0 pending"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- best for <= 64 KiB (1 case): v-small (BLOCK=128, LAYOUT=row_major), 2.000x"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- best for <= 16 MiB (1 case): v-large"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | v-large | BLOCK=512, LAYOUT=row_major | 1.291x | op/small&lt;f16> "
                    "(0.83x) | done |"),
            std::string::npos)
      << md;
  const size_t broken = md.find(
      "| - | v-broken | BLOCK=4096, LAYOUT=row_major | - | - | "
      "build-failed: error: &lt;too many> & \"threads\" \\| 4096 |");
  ASSERT_NE(broken, std::string::npos) << md;
  EXPECT_GT(broken, md.find("| 3 | "));
}

TEST(TuneSummary, SaysWhereEachVariantsTimeWent) {
  TuneRun run = SampleRun();
  const auto md = [&] { return TuneSummaryMarkdown("t", run.evaluations, run.ranking, run.best); };
  EXPECT_EQ(md().find("time per variant"), std::string::npos) << "no step timed: no line";
  for (TuneEvaluation* e : {&run.evaluations[0], &run.evaluations[2]}) {
    e->build_seconds = 50, e->test_seconds = 4, e->bench_seconds = 6;
  }
  run.evaluations[3].build_seconds = 56, run.evaluations[3].bench_seconds = 9;  // no tests
  run.evaluations[1].build_seconds = 99;  // failed to build: no benchmark, not counted
  EXPECT_NE(md().find("- time per variant (means over 3 benchmarked): build 52.0 s (on the CPUs, "
                      "beside the GPU steps), GPU tests 2.7 s, benchmark 7.0 s\n"),
            std::string::npos)
      << md();
}

TEST(TuneHeatmap, RowsByRankInvalidLastInGreyWithTheReason) {
  const TuneRun run = SampleRun();
  const std::string svg = TuneHeatmapSvg("tune <run> & co", run.evaluations, run.ranking);
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_EQ(svg.find("href"), std::string::npos);  // self-contained
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("tune &lt;run&gt; &amp; co"), std::string::npos);
  EXPECT_NE(svg.find("op/small&lt;f16&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<f16>"), std::string::npos);
  const size_t large = svg.find(">v-large 1.29x<");
  const size_t small = svg.find(">v-small 1.29x<");  // the same score: ordered by id
  const size_t base = svg.find(">v-base 1.00x<");
  const size_t broken = svg.find(">v-broken<");
  ASSERT_NE(broken, std::string::npos) << svg;
  EXPECT_LT(large, small);
  EXPECT_LT(small, base);
  EXPECT_LT(base, broken);
  EXPECT_NE(svg.find("<g class=\"unranked\"><title>build-failed: error: &lt;too many&gt; &amp; "
                     "&quot;threads&quot; | 4096</title>"),
            std::string::npos)
      << svg;
  EXPECT_EQ(Count(svg, "<rect class=\"cell\""), 8u);           // 4 variants x 2 cases
  EXPECT_EQ(Count(svg, "fill=\"#bdbdbd\""), 3u);               // the legend swatch and broken's row
  EXPECT_NE(svg.find("fill=\"#1a9850\""), std::string::npos);  // 96% of peak
  EXPECT_NE(svg.find("fill=\"#fc8d59\""), std::string::npos);  // 41% of peak
  EXPECT_NE(svg.find(">&gt;= 95%</text>"), std::string::npos);  // the legend
  EXPECT_EQ(Count(svg, "<text"), Count(svg, "</text>"));
  EXPECT_EQ(Count(svg, "<title>"), Count(svg, "</title>"));
  EXPECT_EQ(Count(svg, "<g"), Count(svg, "</g>"));
}

TEST(TuneRender, NotFullyTestedVariantsKeepTheirTimingsAndAreMarked) {
  std::vector<TuneEvaluation> evaluations = {Evaluation("v-base", "256", TuneStage::kDone, 10, 100),
                                             Evaluation("v-quick", "128", TuneStage::kDone, 5, 50)};
  evaluations[1].tests = TuneTests::kNone;
  const TuneRanking ranking = *RankVariants(evaluations, "v-base");
  const std::string md = TuneSummaryMarkdown("t", evaluations, ranking, {});
  EXPECT_NE(md.find("2 variants: 2 valid (1 ranked, 1 benchmarked, not fully tested), 0 invalid"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| - | v-quick | BLOCK=128, LAYOUT=row_major | 2.000x | op/small&lt;f16> "
                    "(2.00x) | benchmarked, not fully tested |"),
            std::string::npos)
      << md;
  const std::string svg = TuneHeatmapSvg("t", evaluations, ranking);
  EXPECT_NE(svg.find("<g class=\"screened\"><title>benchmarked, not fully tested</title>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">v-quick 2.00x *<"), std::string::npos) << svg;
  EXPECT_EQ(Count(svg, "fill=\"#bdbdbd\""), 1u) << "coloured, not grey: only the legend swatch";
  EXPECT_EQ(Count(svg, "<g"), Count(svg, "</g>"));
}

TEST(TuneHeatmap, UnrankedValidVariantIsGreyToo) {
  std::vector<TuneEvaluation> evaluations = {
      Evaluation("v-base", "256", TuneStage::kDone, 10, 100),
      Evaluation("v-partial", "128", TuneStage::kDone, 5, 50)};
  evaluations[1].cases.pop_back();
  const TuneRanking ranking = *RankVariants(evaluations, "v-base");
  const std::string svg = TuneHeatmapSvg("t", evaluations, ranking);
  EXPECT_NE(svg.find("<title>missing case op/large</title>"), std::string::npos) << svg;
  EXPECT_EQ(Count(svg, "fill=\"#bdbdbd\""), 3u);  // the legend swatch and its row
}

TEST(TuneDispatch, HeaderListsTheBucketsAndRejectsWhatIsNotCode) {
  const TuneRun run = SampleRun();
  auto header = TuneDispatchHeader("tune-2026-12-01T14-25-01", run.evaluations, run.best);
  ASSERT_TRUE(header.ok()) << header.error().message;
  EXPECT_NE(header->find("#pragma once\n"), std::string::npos);
  EXPECT_NE(header->find("Generated by `kbuild tune` in \"tune-2026-12-01T14-25-01\""),
            std::string::npos);
  EXPECT_NE(header->find("// X(max_bytes, BLOCK, LAYOUT)"), std::string::npos);
  EXPECT_NE(header->find("#define KBUILD_TUNED_CONFIGS(X) \\\n"
                         "  X(65536LL, 128, row_major) \\\n"
                         "  X(16777216LL, 512, row_major)\n"),
            std::string::npos)
      << *header;

  std::vector<TuneEvaluation> hostile = run.evaluations;
  hostile[2].variant.values[1].second = "x); system(\"rm\"";
  EXPECT_FALSE(TuneDispatchHeader("t", hostile, run.best).ok());
  EXPECT_FALSE(TuneDispatchHeader("t", run.evaluations, {}).ok());
  hostile = run.evaluations;
  hostile[3].variant.values.pop_back();
  EXPECT_FALSE(TuneDispatchHeader("t", hostile, run.best).ok());
}

// The defaults set no macro: a bucket they win lists the macro names, which the kernel's
// header defines to its defaults.
TEST(TuneDispatch, DefaultsRowNamesTheMacros) {
  TuneRun run = SampleRun();
  run.evaluations[0].variant.values.clear();
  run.evaluations[0].variant.id = "defaults";
  run.evaluations[2].cases[1].median_us = 300;  // v-small now loses the large bucket
  run.evaluations[3].cases[1].median_us = 200;  // and so does v-large
  auto best = BestPerBucket(run.evaluations, "defaults");
  ASSERT_TRUE(best.ok()) << best.error().message;
  auto header = TuneDispatchHeader("t", run.evaluations, *best);
  ASSERT_TRUE(header.ok()) << header.error().message;
  EXPECT_NE(header->find("#define KBUILD_TUNED_CONFIGS(X) \\\n"
                         "  X(65536LL, 128, row_major) \\\n"
                         "  X(16777216LL, BLOCK, LAYOUT)\n"),
            std::string::npos)
      << *header;
  EXPECT_NE(header->find("//   <= 16 MiB: defaults (1.000x over 1 case)."), std::string::npos)
      << *header;
}

// The header compiles and picks the bucket of a problem size, run through the system g++.
TEST(TuneDispatch, HeaderCompilesAndPicksTheBucket) {
  std::vector<BucketBest> best = SampleRun().best;
  best.push_back({ShapeBucketOf(2048 * kMiB), "v-base", 1, 1});
  const std::vector<TuneEvaluation> evaluations = SampleRun().evaluations;
  auto header = TuneDispatchHeader("tune-x\\", evaluations, best);
  ASSERT_TRUE(header.ok()) << header.error().message;
  const auto dir =
      std::filesystem::temp_directory_path() / ("kbuild-tune-dispatch-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tuned_config.h") << *header;
  std::ofstream(dir / "twice.cpp") << "#include \"tuned_config.h\"\n#include \"tuned_config.h\"\n";
  std::ofstream(dir / "main.cpp") << R"(#include "tuned_config.h"
#include <cstdio>
struct Config { long long max_bytes; int block; };
#define AS_CONFIG(max_bytes, block, layout) {max_bytes, block},
constexpr Config kConfigs[] = {KBUILD_TUNED_CONFIGS(AS_CONFIG)};
int main() {
  const long long sizes[] = {1, 65536, 65537, 16777216, 16777217, 1LL << 40};
  for (long long s : sizes) {
    const Config& c = kConfigs[KbuildTunedConfigIndex(s)];
    std::printf("%lld:%d:%lld\n", s, c.block, c.max_bytes);
  }
}
)";
  RealProcessRunner runner;
  const ProcessResult syntax = runner.Run({"g++", "-std=c++17", "-Wall", "-Wextra", "-Werror",
                                           "-fsyntax-only", (dir / "twice.cpp").string()},
                                          {});
  if (syntax.not_found) GTEST_SKIP() << "no g++ on this machine";
  EXPECT_EQ(syntax.exit_code, 0) << syntax.output << *header;
  const ProcessResult built = runner.Run(
      {"g++", "-std=c++17", "-Wall", "-o", (dir / "pick").string(), (dir / "main.cpp").string()},
      {});
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const ProcessResult ran = runner.Run({(dir / "pick").string()}, {});
  EXPECT_EQ(ran.output,
            "1:128:65536\n65536:128:65536\n65537:512:16777216\n16777216:512:16777216\n"
            "16777217:256:-1\n1099511627776:256:-1\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kb
