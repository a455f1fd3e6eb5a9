// The H200 acceptance run of `kbuild optimize --proposer builtin`
// (tools/optimize_acceptance/run.sh) on a made-up speed: its space (make_projects.sh), its
// island and budget, and the real naive kernel's transform sites. The speed grows
// with lanes per row and vector width (the template's structure is the top corner), so the
// run can reach the top only if its budget and the proposer's search allow it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/optimize_proposer.h"
#include "core/optimize_run.h"
#include "core/tune_space.h"

namespace kb {
namespace {

constexpr const char* kAcceptanceSpace = R"([tune]
max-spill-bytes = 0
[tune.params]
NAIVE_LANES = [1, 4, 16, 32]
NAIVE_VEC = [1, 4, 8]
NAIVE_BLOCK = [128, 256]
)";

std::string Define(const Candidate& c, const std::string& name, const std::string& fallback) {
  for (const auto& [n, v] : c.defines) {
    if (n == name) return v;
  }
  return fallback;
}

// Faster with more lanes and wider vectors; the block size barely matters.
class MadeUpSpeed final : public CandidateEvaluator {
 public:
  Expected<std::optional<Attempt>> Evaluate(const Candidate& c, const EvaluationSlot&) override {
    const double lanes = std::stod(Define(c, "NAIVE_LANES", "1"));
    const double vec = std::stod(Define(c, "NAIVE_VEC", "1"));
    const double block = Define(c, "NAIVE_BLOCK", "128") == "256" ? 1.02 : 1.0;
    Attempt a;
    a.cases = {{"rms_norm/32768x4096 bf16", 1000.0 / (lanes * vec * block), 50, 1e8}};
    return std::optional<Attempt>(a);
  }
  Expected<std::optional<std::string>> Profile(const Candidate&, const std::string&,
                                               const EvaluationSlot&) override {
    return std::optional<std::string>("");
  }
};

std::string NaiveKernel() {
  std::ifstream in(std::string(KBUILD_TEST_DATA_DIR) +
                   "/../../../optimize_acceptance/naive_rms_norm.cu");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// How many of 20 seeds reach the top corner with `islands` islands and `budget` attempts.
int SeedsReachingTheTop(const std::string& kernel, const TuneSpace& space, int islands,
                        int budget) {
  int reached = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    MemoryFileSystem fs;
    EXPECT_TRUE(fs.Write("/p/naive_rmsnorm_cuda/rms_norm.cu", kernel).ok());
    MadeUpSpeed evaluator;
    BuiltinProposer proposer(fs, space, seed);
    OptimizeOptions options;
    options.run_dir = "/p/results/optimize-test";
    options.builtin = true;
    options.profile = false;
    options.budget = budget;
    options.islands = {islands, 2, 10, 12};  // the other defaults of kbuild optimize
    options.task.project_dir = "/p";
    options.task.op = "naive-rmsnorm";
    options.task.sources = {"naive_rmsnorm_cuda/rms_norm.cu"};
    auto r = RunOptimize(fs, proposer, evaluator, options);
    EXPECT_TRUE(r.ok()) << r.error().message;
    reached += r.ok() && r->best_score > 32 * 8 * 0.99;
  }
  return reached;
}

TEST(OptimizeAcceptanceBudget, RunShsSettingsReachTheTopCornerForNearlyEverySeed) {
  const std::string kernel = NaiveKernel();
  ASSERT_NE(kernel.find("NAIVE_LANES"), std::string::npos) << "the naive kernel was not found";
  auto space = ParseTuneSpace(kAcceptanceSpace, "kbuild.toml");
  ASSERT_TRUE(space.ok());
  // run.sh: --islands 1 --budget 10. Measured when chosen: 19 of 20 seeds; with two
  // islands 15 (9 at the earlier budget of 8), three 8.
  EXPECT_GE(SeedsReachingTheTop(kernel, *space, 1, 10), 18);
}

}  // namespace
}  // namespace kb
