// The Hub card of kbuild package: front matter, usage from the package's
// __all__, variants, and the benchmark table only from results/latest.json.
#include "core/package_card.h"

#include <gtest/gtest.h>

#include "core/package_project.h"
#include "core/python_exports.h"
#include "core/report.h"
#include "package_fixture.h"

namespace kb {
namespace {

nlohmann::json BenchDocument() {
  return {{"schema", "kbuild-harness-bench/1"},
          {"device", "NVIDIA H200"},
          {"cases",
           {{{"benchmark", "scale_add"},
             {"case", "1048576 bf16"},
             {"time_us", {{"median", 12.345}, {"p10", 12.0}, {"p90", 12.9}}},
             {"gbps", 765.4},
             {"percent_of_peak", 17.9},
             {"baselines", nlohmann::json::array({{{"name", "at::add"}, {"speedup", 1.48}}})},
             {"verdict", "ok"},
             {"problems", nlohmann::json::array()}}}}};
}

RunMetadata RecordedRun() {
  return {"2026-12-02T10:11:12", "NVIDIA H200", "2.11.0+cu130", "13.0", "0.1.0", "", false};
}

std::string PackagedCard(MemoryFileSystem& fs) {
  PackageRequest request{kFixtureProject, "", "acme/my-op", false, "0.1.0"};
  auto result = MakePackage(fs, request);
  EXPECT_TRUE(result.ok()) << result.error().Located();
  return result.ok() ? *fs.Read("/p/dist/my-op/README.md") : "";
}

TEST(PackageCard, WithoutABenchResultSaysSoInOneLine) {
  MemoryFileSystem fs;
  WriteFixtureProject(fs);
  const std::string card = PackagedCard(fs);
  EXPECT_TRUE(card.starts_with(
      "---\nlibrary_name: kernels\nlicense: apache-2.0\ntags:\n- kernel\n---\n\n# my-op\n\n"
      "my-op: out = x * alpha + y as a CUDA kernel.\n"))
      << card;
  EXPECT_NE(card.find("k = get_kernel(\"acme/my-op\", version=2)\nhelp(k.scale_add)\n"),
            std::string::npos)
      << card;
  EXPECT_NE(card.find("Functions: `scale_add`."), std::string::npos) << card;
  EXPECT_NE(card.find("`torch.ops._my_op_cuda_1234abcd.<op>`"), std::string::npos);
  EXPECT_NE(card.find("| `torch211-cxx11-cu130-x86_64-linux` | 9.0a |"), std::string::npos);
  EXPECT_NE(card.find(kNoBenchmarkLine), std::string::npos);
  EXPECT_EQ(card.find("GB/s"), std::string::npos);  // no table, no numbers
}

TEST(PackageCard, TheBenchTableAndRunComeFromResultsLatestJson) {
  MemoryFileSystem fs;
  WriteFixtureProject(fs);
  (void)fs.Write("/p/results/latest.json",
                 JsonText(ResultDocument(BenchDocument(), RecordedRun())));
  const std::string card = PackagedCard(fs);
  EXPECT_NE(card.find("2026-12-02T10:11:12 · NVIDIA H200 · torch 2.11.0+cu130 · CUDA 13.0"),
            std::string::npos)
      << card;
  EXPECT_NE(card.find("12.3"), std::string::npos) << card;  // the recorded median
  EXPECT_NE(card.find("765"), std::string::npos) << card;   // the recorded GB/s
  EXPECT_NE(card.find("1.48x"), std::string::npos) << card;
  EXPECT_EQ(card.find(kNoBenchmarkLine), std::string::npos);

  PackageRequest request{kFixtureProject, "dist/again", "", false, "0.1.0"};
  auto result = MakePackage(fs, request);
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->bench_header.has_value());
  EXPECT_TRUE(result->bench_header->starts_with("2026-12-02T10:11:12 · NVIDIA H200"));
}

// results/latest.json is the project's, maybe hostile: an escape sequence in a baseline's or
// the device's name reaches no card (read with cat, or rendered on the Hub) as itself.
TEST(PackageCard, ControlCharactersFromTheResultBecomeSpaces) {
  MemoryFileSystem fs;
  WriteFixtureProject(fs);
  nlohmann::json bench = BenchDocument();
  bench["cases"][0]["baselines"][0]["name"] = "at::add\x1b]0;owned\x07";
  RunMetadata run = RecordedRun();
  run.gpu = "NVIDIA H200\x1b[2J";
  (void)fs.Write("/p/results/latest.json", JsonText(ResultDocument(bench, run)));
  const std::string card = PackagedCard(fs);
  EXPECT_EQ(card.find('\x1b'), std::string::npos) << card;
  EXPECT_EQ(card.find('\x07'), std::string::npos) << card;
  EXPECT_NE(card.find("NVIDIA H200 [2J"), std::string::npos) << card;
  EXPECT_NE(card.find("at::add ]0;owned "), std::string::npos) << card;
}

// A hostile median of 1e308 would print as 309 digits, a speedup of 1e300 as 301.
TEST(PackageCard, ImplausibleNumbersFromTheResultPrintNoLongerThanRealOnes) {
  const auto card_of = [](const nlohmann::json& bench) {
    MemoryFileSystem fs;
    WriteFixtureProject(fs);
    (void)fs.Write("/p/results/latest.json", JsonText(ResultDocument(bench, RecordedRun())));
    return PackagedCard(fs);
  };
  nlohmann::json hostile = BenchDocument();
  hostile["cases"][0]["time_us"]["median"] = 1e308;
  hostile["cases"][0]["gbps"] = 1e-300;
  hostile["cases"][0]["baselines"][0]["speedup"] = 1e300;
  const std::string card = card_of(hostile);
  EXPECT_EQ(card.find("0000000000"), std::string::npos) << card;
  EXPECT_LT(card.size(), card_of(BenchDocument()).size() + 64) << card;
}

TEST(PackageCard, AnUnusableResultIsAWarningAndNoNumbers) {
  MemoryFileSystem fs;
  WriteFixtureProject(fs);
  (void)fs.Write("/p/elsewhere.json", JsonText(ResultDocument(BenchDocument(), RecordedRun())));
  fs.PlantSymlink("/p/results/latest.json", "/p/elsewhere.json");
  PackageRequest request{kFixtureProject, "", "acme/my-op", false, "0.1.0"};
  auto result = MakePackage(fs, request);
  ASSERT_TRUE(result.ok()) << result.error().Located();
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_NE(result->warnings[0].find("benchmark result not used"), std::string::npos);
  EXPECT_FALSE(result->bench_header.has_value());
  EXPECT_NE(fs.Read("/p/dist/my-op/README.md")->find(kNoBenchmarkLine), std::string::npos);
}

// A knob's numbers (kbuild bench --define) are not the default build's: named on the card,
// and a warning says how to card the default.
TEST(PackageCard, ABenchmarkOfADefineBuildIsNamedAndWarnedAbout) {
  MemoryFileSystem fs;
  WriteFixtureProject(fs);
  RunMetadata run = RecordedRun();
  run.defines = {"TILE=64"};
  (void)fs.Write("/p/results/latest.json", JsonText(ResultDocument(BenchDocument(), run)));
  PackageRequest request{kFixtureProject, "", "acme/my-op", false, "0.1.0"};
  auto result = MakePackage(fs, request);
  ASSERT_TRUE(result.ok()) << result.error().Located();
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_NE(result->warnings[0].find("built with --define values"), std::string::npos);
  EXPECT_NE(fs.Read("/p/dist/my-op/README.md")->find("CUDA 13.0 · kbuild 0.1.0 · --define TILE=64"),
            std::string::npos);
}

TEST(PackageCard, NoLicenseLeavesTheKeyOut) {
  CardInput input;
  input.name = "x";
  input.repo_id = "a/x";
  input.variants = {{"torch211-cxx11-cu130-x86_64-linux", {}}};
  const std::string card = RenderPackageCard(input);
  EXPECT_TRUE(card.starts_with("---\nlibrary_name: kernels\ntags:\n- kernel\n---\n")) << card;
  EXPECT_NE(card.find("CUDA kernels for PyTorch, built with kbuild."), std::string::npos);
  EXPECT_NE(card.find("| - |"), std::string::npos);
}

TEST(PythonExports, ReadsAllAndTheDocstringAsText) {
  EXPECT_EQ(PythonAllNames("x = 1\n__all__ = [\n  \"rms_norm\",\n  'ops',  # c\n]\n"),
            (std::vector<std::string>{"rms_norm", "ops"}));
  EXPECT_EQ(PythonAllNames("__all__ = (\"a\", \"b c\", \"d\")"),
            (std::vector<std::string>{"a", "d"}));
  EXPECT_TRUE(PythonAllNames("names = ['a']\n").empty());
  // Scanned by hand: 200,000 spaces in the list overflowed std::regex's recursion.
  EXPECT_EQ(PythonAllNames("__all__ = [" + std::string(200000, ' ') + "\"scale_add\"]\n"),
            std::vector<std::string>{"scale_add"});
  EXPECT_EQ(
      PythonAllNames("  __all__ = ['x']\n__all__=(\n'y', \"" + std::string(200000, 'z') + "\")"),
      (std::vector<std::string>{"y", std::string(200000, 'z')}));
  EXPECT_EQ(PythonDocstringFirstLine("\n'''\n  First line.\nSecond.'''\n"), "First line.");
  EXPECT_EQ(PythonDocstringFirstLine("import x\n\"\"\"late\"\"\""), "");
  EXPECT_EQ(PythonDocstringFirstLine("\"\"\"unterminated"), "");
}

}  // namespace
}  // namespace kb
