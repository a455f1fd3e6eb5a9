// profile.md of kbuild optimize: a `kbuild profile --json` document rendered
// for the proposer (with ncu counters, and the SASS check alone without a
// GPU), and the child evaluator's `kbuild profile` run behind the
// ProcessRunner seam.
#include <gtest/gtest.h>

#include <fstream>

#include "core/optimize_evaluator.h"
#include "core/process.h"
#include "core/profile_markdown.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(KBUILD_TEST_DATA_DIR) / "optimize";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(OptimizeProfile, KernelsRenderVerdictCausesDramOccupancyStallsAndSass) {
  const std::string md =
      ProfileMarkdown(nlohmann::json::parse(ReadText(kData / "profile.json")), "a0003 on 'x'");
  EXPECT_TRUE(Has(md, "# Profile of a0003 on 'x'")) << md;
  EXPECT_TRUE(Has(md, "## `void op_kernel<__nv_bfloat16>(__nv_bfloat16*, int)`")) << md;
  EXPECT_TRUE(Has(md, "- verdict: memory-bound far from peak: latency\n")) << md;
  EXPECT_TRUE(Has(md, "- causes: scalar global loads: no 16-byte vectors\n")) << md;
  EXPECT_TRUE(Has(md, "DRAM 2300 GB/s, 52.3% of the measured copy bandwidth")) << md;
  EXPECT_TRUE(Has(md, "achieved 41.5% of theoretical 50.0%, limited by registers")) << md;
  EXPECT_TRUE(Has(md, "- top stalls: long_scoreboard 20.1, lg_throttle 4.2")) << md;
  EXPECT_TRUE(Has(md,
                  "- sass: loads 2x LDG.16; stores 1x STG.16; local memory: none; 40 "
                  "registers"))
      << md;
  EXPECT_TRUE(Has(md, "no vector loads")) << md;
}

TEST(OptimizeProfile, WithoutNcuTheSassCheckIsWhatItShows) {
  const std::string md = ProfileMarkdown(
      nlohmann::json::parse(ReadText(kData / "profile_no_ncu.json")), "baseline on 'x'");
  EXPECT_TRUE(Has(md, "No ncu counters: no GPU visible.")) << md;
  EXPECT_TRUE(Has(md,
                  "- `op_kernel(float*, int)`: loads 4x LDG.128; stores 2x STG.128; local "
                  "memory: 1 LDL, 1 STL; 64 registers, stack 32 B"))
      << md;
  // A hostile or broken document: nothing throws, unknown numbers read "?".
  nlohmann::json odd = {{"kernels", {{{"verdict", 3}, {"dram_gbps", nullptr}, {"sass", "x"}}}}};
  const std::string broken = ProfileMarkdown(odd, "a0001");
  EXPECT_TRUE(Has(broken, "- verdict: ?")) << broken;
  EXPECT_TRUE(Has(broken, "DRAM ? GB/s")) << broken;
  EXPECT_TRUE(Has(ProfileMarkdown(nlohmann::json(), "a0001"), "No ncu counters"));
}

TEST(OptimizeProfile, ChildProfileRunsInTheWorkersCopyWithTheCandidatesDefines) {
  MemoryFileSystem fs;
  const std::string document = ReadText(kData / "profile.json");
  int exit_code = 0;
  FakeProcessRunner runner([&](const std::vector<std::string>&, const RunOptions& options) {
    EXPECT_EQ(options.timeout_seconds, 77);
    ProcessResult r;
    r.exit_code = exit_code;
    r.output = exit_code == 0 ? document : R"({"command": "profile", "ok": false, "exit_code": 4,
                                   "error": {"message": "neither ncu nor cuobjdump runs"}})";
    return r;
  });
  ProjectSnapshot snapshot;
  snapshot.files = {{"csrc/op.cu", "old"}};
  ChildEvaluatorSetup setup;
  setup.run_dir = "/p/results/optimize-t";
  setup.kbuild_exe = "/bin/kbuild";
  setup.snapshot = &snapshot;
  setup.profile_timeout_seconds = 77;
  ChildKbuildEvaluator evaluator(fs, runner, setup);
  Candidate c;
  c.id = "a0002";
  c.files = {{"csrc/op.cu", "new"}};
  c.defines = {{"BLOCK", "256"}};
  EvaluationSlot slot;
  slot.attempt_dir = "/p/results/optimize-t/attempts/a0002";
  auto md = evaluator.Profile(c, "op/large", slot);
  ASSERT_TRUE(md.ok()) << md.error().message;
  ASSERT_TRUE(md->has_value());
  EXPECT_TRUE(Has(**md, "- verdict: memory-bound far from peak")) << **md;
  const fs::path copy = WorkerCopyDir(setup.run_dir, 0);
  EXPECT_EQ(runner.calls.at(0),
            (std::vector<std::string>{"/bin/kbuild", "-C", copy.string(), "profile", "--define",
                                      "BLOCK=256", "--json", "--case", "op/large"}));
  EXPECT_EQ(*fs.Read(copy / "csrc/op.cu"), "new");
  EXPECT_TRUE(fs.Read(slot.attempt_dir / "profile.json").ok());

  exit_code = 4;  // kbuild profile could not run at all: one line says why, the run goes on
  md = evaluator.Profile(c, "op/large", slot);
  ASSERT_TRUE(md.ok());
  ASSERT_TRUE(md->has_value());
  EXPECT_TRUE(Has(**md,
                  "Not profiled (kbuild profile --case 'op/large'): neither ncu nor "
                  "cuobjdump runs"))
      << **md;
  EXPECT_EQ(std::count(md->value().begin(), md->value().end(), '\n'), 1);
}

}  // namespace
}  // namespace kb
