// kbuild optimize --proposer builtin: candidates move the parent's macro
// values over a kbuild.toml [tune] space, stay inside it and its constraints,
// never repeat a tried point, and a run ends with a clear message (no loop of
// failed attempts) once every valid point was tried.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/optimize_history.h"
#include "core/optimize_proposer.h"
#include "core/optimize_run.h"
#include "core/tune_space.h"

namespace kb {
namespace {

// 3 x 3 = 9 points, of which BLOCK=512 VECS=4 breaks the constraint: 8 valid.
constexpr const char* kSpace = R"([tune]
constraints = ["BLOCK * VECS <= 1024"]
[tune.params]
BLOCK = [128, 256, 512]
VECS = [1, 2, 4]
)";

TuneSpace Space() {
  auto space = ParseTuneSpace(kSpace, "kbuild.toml");
  EXPECT_TRUE(space.ok()) << space.error().message;
  return *space;
}

std::string Value(const Candidate& c, const std::string& name) {
  for (const auto& [n, v] : c.defines) {
    if (n == name) return v;
  }
  return "";
}

// How many parameters differ, and whether each moved to an adjacent value of its list.
std::pair<int, bool> Moves(const TuneSpace& space, const Candidate& from, const Candidate& to) {
  int changed = 0;
  bool adjacent = true;
  for (const TuneParam& p : space.params) {
    const auto at = [&](const std::string& v) {
      return std::find(p.values.begin(), p.values.end(), v) - p.values.begin();
    };
    const auto a = at(Value(from, p.name));
    const auto b = at(Value(to, p.name));
    if (a == b) continue;
    ++changed;
    adjacent = adjacent && (a - b == 1 || b - a == 1);
  }
  return {changed, adjacent};
}

TEST(OptimizeBuiltinProposer, StaysInTheSpaceNeverRepeatsAndSaysWhenExhausted) {
  const TuneSpace space = Space();
  BuiltinProposer proposer(space, 7);
  ProposerTask task;
  ProposalRequest request;
  request.task = &task;
  request.planned.origin = CandidateOrigin::kBuiltin;
  request.planned.island = 1;
  request.planned.files = {{"csrc/op.cu", "kernel"}};  // the parent's files pass through
  // A point tried before (an earlier run of the same history): never proposed.
  request.tried.insert(VariantId(TuneVariant{{{"BLOCK", "128"}, {"VECS", "1"}}, ""}));
  for (int n = 1; n <= 7; ++n) {
    request.planned.id = fmt::format("a{:04d}", n);
    auto p = proposer.Propose(request);
    ASSERT_TRUE(p.ok()) << p.error().message;
    ASSERT_TRUE(p->candidate) << n << ": " << p->failure;
    EXPECT_FALSE(p->exhausted);
    const Candidate& c = *p->candidate;
    const TuneVariant point{c.defines, ""};
    EXPECT_TRUE(Satisfies(space, point)) << n << ": " << c.summary;
    EXPECT_TRUE(request.tried.insert(VariantId(point)).second) << n << " repeats " << c.summary;
    EXPECT_EQ(c.id, request.planned.id);
    EXPECT_EQ(c.island, 1);
    EXPECT_EQ(c.origin, CandidateOrigin::kBuiltin);
    ASSERT_EQ(c.files.size(), 1u);
    EXPECT_EQ(c.files[0].content, "kernel");
    EXPECT_EQ(c.summary.rfind("set ", 0), 0u) << c.summary;
    if (n == 2) {
      // From a point of the space with untried neighbours: one or two adjacent steps.
      const auto [changed, adjacent] = Moves(space, request.planned, c);
      EXPECT_TRUE(changed == 1 || changed == 2) << c.summary;
      EXPECT_TRUE(adjacent) << c.summary;
    }
    request.planned.defines = c.defines;  // the next one grows from this one
  }
  request.planned.id = "a0008";
  auto p = proposer.Propose(request);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->candidate);
  EXPECT_TRUE(p->exhausted);
  EXPECT_NE(p->failure.find("tried every valid point"), std::string::npos) << p->failure;
  EXPECT_NE(p->failure.find("8 of 9"), std::string::npos) << p->failure;
}

TEST(OptimizeBuiltinProposer, WithoutParametersItFailsWithoutEndingTheRun) {
  BuiltinProposer proposer(TuneSpace{}, 1);
  ProposerTask task;
  ProposalRequest request;
  request.task = &task;
  auto p = proposer.Propose(request);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->candidate);
  EXPECT_FALSE(p->exhausted);
  EXPECT_NE(p->failure.find("[tune.params]"), std::string::npos);
}

// Passes every point at a time from its values, except BLOCK=512 (does not compile).
class SpaceEvaluator final : public CandidateEvaluator {
 public:
  Expected<std::optional<Attempt>> Evaluate(const Candidate& c, const EvaluationSlot&) override {
    Attempt a;
    if (Value(c, "BLOCK") == "512") {
      a.verdict = AttemptVerdict::kCompileError;
      a.first_error = "csrc/op.cu:3:1: error: too many resources requested";
      return std::optional<Attempt>(a);
    }
    const double vecs = Value(c, "VECS").empty() ? 1 : std::stod(Value(c, "VECS"));
    a.cases = {{"op/large", 10 / vecs, 50, 1e8}};
    return std::optional<Attempt>(a);
  }
  Expected<std::optional<std::string>> Profile(const Candidate& c, const std::string&,
                                               const EvaluationSlot&) override {
    ADD_FAILURE() << "the builtin proposer reads no profile, yet " << c.id << " was profiled";
    return std::optional<std::string>("");
  }
};

TEST(OptimizeBuiltinRun, EndsWithAClearMessageWhenTheSpaceIsExhausted) {
  MemoryFileSystem fs;
  SpaceEvaluator evaluator;
  BuiltinProposer proposer(Space(), 3);
  std::vector<std::string> progress;
  OptimizeOptions options;
  options.run_dir = "/p/results/optimize-test";
  options.builtin = true;
  options.profile = false;
  options.budget = 40;
  options.islands = {2, 2, 3, 0};
  options.task.project_dir = "/p";
  options.task.op = "op";
  options.progress = [&](const std::string& line) { progress.push_back(line); };
  auto r = RunOptimize(fs, proposer, evaluator, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // The baseline and the 8 valid points, each once, failures and their repairs included.
  ASSERT_EQ(r->attempts.size(), 9u);
  std::set<std::string> points;
  for (const auto& a : r->attempts) {
    EXPECT_NE(a.verdict, AttemptVerdict::kProposerFailed) << a.candidate.id << a.first_error;
    points.insert(VariantId(TuneVariant{a.candidate.defines, ""}));
  }
  EXPECT_EQ(points.size(), 9u);
  EXPECT_GT(r->totals.repairs, 0);
  EXPECT_FALSE(r->stopped);
  EXPECT_NE(r->exhausted.find("tried every valid point"), std::string::npos) << r->exhausted;
  EXPECT_NE(progress.back().find("the run ends"), std::string::npos) << progress.back();
  EXPECT_NEAR(r->best_score, 4.0, 1e-9);  // VECS=4 at BLOCK 128 or 256
  EXPECT_NE(fs.Read(r->run_dir / "summary.md")->find("Ended before the budget"), std::string::npos);
  auto history = ReadAttempts(fs, r->run_dir / kOptimizeHistoryFile);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->attempts.size(), 9u);
}

}  // namespace
}  // namespace kb
