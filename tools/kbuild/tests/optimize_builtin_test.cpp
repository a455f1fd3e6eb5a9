// kbuild optimize --proposer builtin: candidates move the parent's macro
// values over a kbuild.toml [tune] space (inside it and its constraints) or
// apply one source transform to the parent's files; neither a point nor a
// transform is proposed twice in a run, resumes included, and a run ends with
// a clear message (no loop of failed attempts) once nothing is left.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "acceptance_space.h"
#include "core/optimize_history.h"
#include "core/optimize_proposer.h"
#include "core/optimize_run.h"
#include "core/source_transforms.h"
#include "core/tune_space.h"

namespace kb {
namespace {

namespace fs = std::filesystem;

// 3 x 3 = 9 points, of which BLOCK=512 VECS=4 breaks the constraint: 8 valid.
constexpr const char* kSpace = R"([tune]
constraints = ["BLOCK * VECS <= 1024"]
[tune.params]
BLOCK = [128, 256, 512]
VECS = [1, 2, 4]
)";

// A kernel with every kind of site: restrict on x, min blocks 1/2/4, one loop.
constexpr const char* kKernel = R"(__global__ void __launch_bounds__(256) Scale(
    float* y, const float* x, int n) {
  for (int i = 0; i < 4; ++i) y[i] = 2.f * x[i];
}
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
  MemoryFileSystem fs;
  BuiltinProposer proposer(fs, space, 7);
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

TEST(OptimizeBuiltinProposer, WithNeitherParametersNorTransformsItIsExhausted) {
  MemoryFileSystem fs;
  BuiltinProposer proposer(fs, TuneSpace{}, 1);
  ProposerTask task;
  ProposalRequest request;
  request.task = &task;
  request.best = {{"csrc/op.cu", "__global__ void K(float* y) { y[0] = 1.f; }\n"}};
  auto p = proposer.Propose(request);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->candidate);
  EXPECT_TRUE(p->exhausted);
  EXPECT_NE(p->failure.find("no [tune.params]"), std::string::npos) << p->failure;
  EXPECT_NE(p->failure.find("no untried source transform"), std::string::npos) << p->failure;
  // What the command says before starting such a run.
  const std::string why = BuiltinNothingToDo(TuneSpace{}, request.best);
  EXPECT_NE(why.find("[tune.params]"), std::string::npos) << why;
  EXPECT_NE(why.find("__restrict__"), std::string::npos) << why;
  EXPECT_EQ(BuiltinNothingToDo(Space(), request.best), "");
  EXPECT_EQ(BuiltinNothingToDo(TuneSpace{}, {{"csrc/op.cu", kKernel}}), "");
}

TEST(OptimizeBuiltinProposer, MixesTuneMovesAndTransformsWithoutRepeating) {
  MemoryFileSystem fs;
  const TuneSpace space = Space();
  BuiltinProposer proposer(fs, space, 5);
  ProposerTask task;
  ProposalRequest request;
  request.task = &task;
  request.planned.origin = CandidateOrigin::kBuiltin;
  request.best = {{"csrc/op.cu", kKernel}};
  std::set<std::string> transforms;
  int moves = 0;
  for (int n = 1; n <= 12; ++n) {
    request.planned.id = fmt::format("a{:04d}", n);
    auto p = proposer.Propose(request);
    ASSERT_TRUE(p.ok()) << p.error().message;
    ASSERT_TRUE(p->candidate) << n << ": " << p->failure;
    const Candidate& c = *p->candidate;
    const std::string id = TransformIdOf(c.summary);
    if (id.empty()) {
      ++moves;
      EXPECT_EQ(c.summary.rfind("set ", 0), 0u) << c.summary;
      EXPECT_TRUE(request.tried.insert(VariantId(TuneVariant{c.defines, ""})).second) << c.summary;
      EXPECT_EQ(c.files.size(), request.planned.files.size()) << "a move writes no source";
    } else {
      EXPECT_TRUE(transforms.insert(id).second) << n << " repeats " << id;
      EXPECT_EQ(c.defines, request.planned.defines) << "a transform moves no macro";
      ASSERT_EQ(c.files.size(), 1u);
      EXPECT_EQ(c.files[0].relative, "csrc/op.cu");
      EXPECT_NE(c.files[0].content, request.best[0].content) << c.summary;
      request.best[0].content = c.files[0].content;
    }
    request.planned.defines = c.defines;
    request.planned.files = c.files;
  }
  EXPECT_GE(moves, 4);
  EXPECT_GE(transforms.size(), 2u);
}

Attempt Scored(const std::string& id, const std::string& parent,
               std::vector<std::pair<std::string, std::string>> defines, double score) {
  Attempt a;
  a.candidate.id = id;
  a.candidate.parent = parent;
  a.candidate.defines = std::move(defines);
  a.score = score;
  return a;
}

TEST(OptimizeBuiltinProposer, AnImprovingMoveIsMadeAgainBeforeAnythingElse) {
  MemoryFileSystem fs;
  const TuneSpace space = Space();
  ProposerTask task;
  const Attempt grandparent = Scored("a0001", "baseline", {{"BLOCK", "128"}, {"VECS", "1"}}, 1.2);
  Attempt parent = Scored("a0002", "a0001", {{"BLOCK", "128"}, {"VECS", "2"}}, 1.5);
  for (uint64_t seed = 1; seed <= 12; ++seed) {  // the transform roll never wins over it
    BuiltinProposer proposer(fs, space, seed);
    ProposalRequest request;
    request.task = &task;
    request.planned.id = "a0003";
    request.planned.origin = CandidateOrigin::kBuiltin;
    request.planned.defines = parent.candidate.defines;
    request.best = {{"csrc/op.cu", kKernel}};
    request.parent = &parent;
    request.grandparent = &grandparent;
    auto p = proposer.Propose(request);
    ASSERT_TRUE(p.ok() && p->candidate) << seed;
    EXPECT_EQ(Value(*p->candidate, "VECS"), "4") << p->candidate->summary;
    EXPECT_EQ(Value(*p->candidate, "BLOCK"), "128");
    EXPECT_EQ(p->candidate->summary, "set VECS=4 (the improving move again)");
  }
  // A move that did not improve, or a repair, samples the neighbourhood instead.
  parent.score = 1.1;
  BuiltinProposer proposer(fs, space, 3);
  ProposalRequest request;
  request.task = &task;
  request.planned.id = "a0003";
  request.planned.defines = parent.candidate.defines;
  request.parent = &parent;
  request.grandparent = &grandparent;
  auto p = proposer.Propose(request);
  ASSERT_TRUE(p.ok() && p->candidate);
  EXPECT_EQ(p->candidate->summary.find("again"), std::string::npos) << p->candidate->summary;
}

// The acceptance project's space (tools/optimize_acceptance/make_projects.sh) on a
// made-up speed that grows with lanes and vector width: from the naive baseline the
// builtin proposer, as the loop drives it (the island's best as parent), reaches the
// fastest point within the acceptance run's budget of 12 attempts (measured when the space
// grew to 512 lanes: 2-9 attempts, 5.7 on average).
TEST(OptimizeBuiltinProposer, ClimbsAMonotoneSpaceWithinTheAcceptanceBudget) {
  auto space = ParseTuneSpace(AcceptanceSpaceToml(), "kbuild.toml");
  ASSERT_TRUE(space.ok());
  ASSERT_EQ(space->params.size(), 3u) << AcceptanceSpaceToml();
  // The made-up speed of the top corner: the last lanes and vector width, 256 threads.
  const double top = static_cast<double>(space->params[0].values.size()) *
                     static_cast<double>(space->params[1].values.size()) * 1.02;
  const auto speed = [&](const Candidate& c) {
    const auto at = [&](int i) {
      const auto& values = space->params[i].values;
      return std::find(values.begin(), values.end(), Value(c, space->params[i].name)) -
             values.begin();
    };
    return (1.0 + at(0)) * (1.0 + at(1)) * (at(2) == 1 ? 1.02 : 1.0);
  };
  MemoryFileSystem fs;
  ProposerTask task;
  int reached = 0;
  std::vector<int> attempts_needed;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    BuiltinProposer proposer(fs, *space, seed);
    std::vector<Attempt> records;
    records.reserve(32);
    records.push_back(Scored("baseline", "", {}, 1.0));
    size_t best = 0;
    std::set<std::string> tried;
    int needed = 0;
    for (int n = 1; n <= 24 && needed == 0; ++n) {
      ProposalRequest request;
      request.task = &task;
      request.planned.id = fmt::format("a{:04d}", n);
      request.planned.parent = records[best].candidate.id;
      request.planned.defines = records[best].candidate.defines;
      request.best = {{"csrc/op.cu", "// no transform site\n"}};
      request.parent = &records[best];
      for (const auto& a : records) {
        if (a.candidate.id == records[best].candidate.parent) request.grandparent = &a;
      }
      request.tried = tried;
      auto p = proposer.Propose(request);
      ASSERT_TRUE(p.ok() && p->candidate) << seed << " " << n;
      tried.insert(VariantId(TuneVariant{p->candidate->defines, ""}));
      records.push_back(Scored(request.planned.id, request.planned.parent, p->candidate->defines,
                               speed(*p->candidate)));
      if (records.back().score > records[best].score) best = records.size() - 1;
      if (records[best].score > top * 0.99) needed = n;
    }
    attempts_needed.push_back(needed);
    reached += needed > 0 && needed <= 12;
  }
  EXPECT_EQ(reached, 20) << "of 20 seeds; attempts needed: "
                         << ::testing::PrintToString(attempts_needed);
}

TEST(OptimizeBuiltinProposer, TransformsRecordedInTheHistoryAreNotProposedAgain) {
  MemoryFileSystem fs;
  const fs::path run = "/p/results/optimize-test";
  const auto all = FindTransformSites({{"csrc/op.cu", kKernel}});
  ASSERT_EQ(all.size(), 5u);  // restrict, minblocks 1 2 4, unroll
  // An earlier process proposed all but the last (a resumed run).
  for (size_t n = 0; n + 1 < all.size(); ++n) {
    Attempt a;
    a.candidate.id = fmt::format("a{:04d}", n + 1);
    a.candidate.origin = CandidateOrigin::kBuiltin;
    a.candidate.summary = all[n].description + " [transform " + all[n].id + "]";
    ASSERT_TRUE(AppendAttempt(fs, run / kOptimizeHistoryFile, a));
  }
  BuiltinProposer proposer(fs, TuneSpace{}, 2);
  ProposerTask task;
  ProposalRequest request;
  request.task = &task;
  request.best = {{"csrc/op.cu", kKernel}};
  request.planned.id = "a0005";
  request.attempt_dir = run / "attempts" / "a0005";
  auto p = proposer.Propose(request);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p->candidate) << p->failure;
  EXPECT_EQ(TransformIdOf(p->candidate->summary), all.back().id);
  EXPECT_EQ(p->candidate->summary, all.back().description + " [transform " + all.back().id + "]");
  request.planned.id = "a0006";  // the same parent again: nothing left
  p = proposer.Propose(request);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->exhausted) << (p->candidate ? p->candidate->summary : "");
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
  BuiltinProposer proposer(fs, Space(), 3);
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

TEST(OptimizeBuiltinRun, WithoutATuneSpaceTransformsRunAndSurviveAResume) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.Write("/p/csrc/op.cu", kKernel));
  SpaceEvaluator evaluator;
  OptimizeOptions options;
  options.run_dir = "/p/results/optimize-test";
  options.builtin = true;
  options.profile = false;
  options.budget = 2;
  options.islands = {2, 1, 0, 0};
  options.task.project_dir = "/p";
  options.task.op = "op";
  options.task.sources = {"csrc/op.cu"};
  {
    BuiltinProposer first(fs, TuneSpace{}, 4);
    auto r = RunOptimize(fs, first, evaluator, options);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->attempts.size(), 3u);
    EXPECT_TRUE(r->exhausted.empty()) << r->exhausted;
  }
  options.budget = 40;
  BuiltinProposer resumed(fs, TuneSpace{}, 4);  // a new process: only the history remembers
  auto r = RunOptimize(fs, resumed, evaluator, options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::set<std::string> ids;
  for (const auto& a : r->attempts) {
    if (a.candidate.origin == CandidateOrigin::kBaseline) continue;
    EXPECT_EQ(a.verdict, AttemptVerdict::kOk) << a.candidate.id << " " << a.first_error;
    const std::string id = TransformIdOf(a.candidate.summary);
    EXPECT_FALSE(id.empty()) << a.candidate.summary;
    EXPECT_TRUE(ids.insert(id).second) << a.candidate.id << " repeats " << id;
  }
  EXPECT_GE(ids.size(), 5u);
  EXPECT_LT(r->attempts.size(), 12u);
  EXPECT_NE(r->exhausted.find("no untried source transform"), std::string::npos) << r->exhausted;
  EXPECT_NE(fs.Read(r->run_dir / "summary.md")->find("Ended before the budget"), std::string::npos);
}

}  // namespace
}  // namespace kb
