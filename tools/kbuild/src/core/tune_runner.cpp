#include "core/tune_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "core/tune_evaluate.h"
#include "core/tune_finalists.h"
#include "core/tune_space.h"
#include "core/tune_workspace.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStrategies[] = {"grid", "random", "evolve"};
constexpr int kMaxBuildJobs = 64;
constexpr size_t kParentsPerRound = 4;  // evolve: the best variants each round grows from

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status CheckOptions(const TuneOptions& o) {
  if (std::find(std::begin(kStrategies), std::end(kStrategies), o.strategy) ==
      std::end(kStrategies)) {
    return MakeError(ExitCode::kUsage, "unknown strategy '" + o.strategy + "'",
                     "use --strategy grid, random or evolve");
  }
  if (o.build_jobs < 1 || o.build_jobs > kMaxBuildJobs) {
    return MakeError(ExitCode::kUsage,
                     "--build-jobs must be between 1 and " + std::to_string(kMaxBuildJobs));
  }
  if (o.time_limit_seconds < 0) return MakeError(ExitCode::kUsage, "--time must be >= 0");
  return {};
}

TuneVariant DefaultsVariant() {
  TuneVariant v;
  v.id = kTuneDefaultsId;
  return v;
}

const TuneEvaluation* FindRecorded(const std::vector<TuneEvaluation>& history,
                                   const std::string& id) {
  for (const auto& e : history) {
    if (e.variant.id == id && e.stage != TuneStage::kPending) return &e;
  }
  return nullptr;
}

// The defaults are the baseline: without them valid and timed, nothing compares.
Status CheckDefaults(const TuneEvaluation& defaults, const fs::path& run_dir) {
  const std::string hint =
      std::string(defaults.stage == TuneStage::kLost
                      ? "no queue worker finished them: see the workers' output (queue/slurm/ "
                        "for --backend slurm) and kbuild worker --help"
                      : "fix the project first (kbuild build, test and bench show the whole "
                        "output)") +
      "; this run's records are in " + run_dir.string();
  if (defaults.stage != TuneStage::kDone) {
    return MakeError(ExitCode::kCheckFailed,
                     "the defaults (the project as it is) failed: " +
                         TuneStageWord(defaults.stage) + ": " + defaults.reason,
                     defaults.stage == TuneStage::kSpills
                         ? "raise max-spill-bytes in kbuild.toml [tune], or stop the spill"
                         : hint);
  }
  if (defaults.cases.empty()) {
    return MakeError(ExitCode::kCheckFailed,
                     "the defaults' benchmark timed no performance case: nothing to rank by",
                     "check --filter, and that benchmarks/ has cases that are not "
                     "correctness_only");
  }
  return {};
}

class TuneRun {
 public:
  TuneRun(TuneEvaluator& evaluator, const TuneOptions& options, TuneSpace space,
          ProjectSnapshot snapshot, TuneRunResult& result)
      : evaluator_(evaluator),
        options_(options),
        space_(std::move(space)),
        snapshot_(std::move(snapshot)),
        result_(result) {
    clock_ = options.seconds_now ? options.seconds_now : SteadySeconds;
    start_ = clock_();
    budget_ = options.budget.value_or(GridVariants(space_, kDefaultTuneBudget).size());
    test_filter_ = options.test_filter.value_or(space_.test_filter);
  }

  Status Run() {
    if (!FindRecorded(result_.evaluations, kTuneDefaultsId)) {
      Progress(
          "tune: [defaults] building the project as it is (the baseline), then its test and "
          "benchmark binaries (kbuild test|bench --build-only), so the GPU steps compile nothing");
      auto end = Evaluate({DefaultsVariant()}, /*full_tests=*/true);
      if (!end) return end.error();
      if (*end == TuneBatchEnd::kStopped) return Stopped();
    }
    const TuneEvaluation* defaults = FindRecorded(result_.evaluations, kTuneDefaultsId);
    if (!defaults) return Ended(TuneBatchEnd::kHalted);  // --time ran out before they started
    if (Status s = CheckDefaults(*defaults, result_.run_dir); !s) return s;
    Progress(fmt::format("tune: {} variant{} ({}), {}, {}, in {}", budget_, budget_ == 1 ? "" : "s",
                         options_.strategy, evaluator_.AtOnceText(), TestsPlanText(),
                         result_.run_dir.string()));
    phase_start_ = clock_();
    const int before_search = result_.evaluated_now;
    Status searched = options_.strategy == "evolve" ? Evolve() : EvaluatePlanned();
    result_.searched_now = result_.evaluated_now - before_search;
    result_.search_seconds = clock_() - phase_start_;
    if (!searched || result_.stopped) return searched;
    return Finalists();
  }

 private:
  std::string TestsPlanText() const {
    const std::string each =
        test_filter_.empty() ? "" : " after tests matching '" + test_filter_ + "'";
    if (options_.full_tests == kTuneFullTestsAll) return "full tests before each benchmark";
    return fmt::format("each benchmarked{}, full tests on the best {}", each, options_.full_tests);
  }

  // The full suite on the best benchmarked variants, until full_tests passed,
  // then on each shape bucket's best benchmarked variant. Runs after --time
  // too (the finalists are what a run concludes with).
  Status Finalists() {
    for (;;) {
      auto ranking = RankVariants(result_.evaluations, kTuneDefaultsId);
      if (!ranking) return {};
      auto leaders = BestPerBucket(result_.evaluations, kTuneDefaultsId, BucketContenders::kScored);
      auto bucket_tested = BestPerBucket(result_.evaluations, kTuneDefaultsId);
      const auto id = NextFinalist(*ranking, options_.full_tests, kTuneDefaultsId,
                                   leaders ? *leaders : std::vector<BucketBest>{},
                                   bucket_tested ? *bucket_tested : std::vector<BucketBest>{});
      if (!id) return {};
      const TuneEvaluation benchmarked = *FindRecorded(result_.evaluations, *id);
      const size_t passed = FullyTestedCount(*ranking, kTuneDefaultsId);
      const std::string why =
          passed < options_.full_tests
              ? fmt::format("{} of {} passed so far", passed, options_.full_tests)
              : "the best of a shape bucket";
      Progress(fmt::format("tune: finalist {} {}: full tests ({})", *id,
                           TuneValuesText(benchmarked.variant), why));
      int tests_passed = 0;
      auto tested = evaluator_.Finalist(Setup(false), benchmarked, &tests_passed);
      if (!tested) return tested.error();
      if (!*tested) return Stopped();
      ++result_.finalists_tested_now;
      Replace(**tested);
      const TuneEvaluation& e = **tested;
      Progress(e.stage == TuneStage::kDone
                   ? fmt::format("tune: finalist {}: {} tests passed", *id, tests_passed)
                   : fmt::format("tune: finalist {}: invalid, {}; the next best is tested "
                                 "in its place",
                                 *id, e.reason));
    }
  }

  Status EvaluatePlanned() {
    const std::vector<TuneVariant> planned =
        options_.strategy == "grid" ? GridVariants(space_, budget_)
                                    : RandomVariants(space_, budget_, options_.seed, {});
    std::vector<TuneVariant> left;
    for (const auto& v : planned) {
      if (!FindRecorded(result_.evaluations, v.id)) left.push_back(v);
    }
    budget_ = planned.size();
    auto end = Evaluate(left);
    if (!end) return end.error();
    return Ended(*end);
  }

  // Rounds of neighbours of the best so far, twice the variants evaluated at once per round.
  Status Evolve() {
    const size_t per_round = evaluator_.AtOnce() * 2;
    for (uint64_t round = 0; VariantsRecorded() < budget_; ++round) {
      std::set<std::string> exclude;
      for (const auto& e : result_.evaluations) exclude.insert(e.variant.id);
      const size_t count = std::min(per_round, budget_ - VariantsRecorded());
      const auto batch = EvolveVariants(space_, BestSoFar(), count, options_.seed + round, exclude);
      if (batch.empty()) break;  // the valid space is exhausted
      auto end = Evaluate(batch);
      if (!end) return end.error();
      if (*end != TuneBatchEnd::kDone) return Ended(*end);
    }
    return {};
  }

  std::vector<TuneVariant> BestSoFar() const {
    std::vector<TuneVariant> best;
    auto ranking = RankVariants(result_.evaluations, kTuneDefaultsId);
    if (!ranking) return best;
    for (const auto& r : ScoredByRank(*ranking)) {
      const TuneEvaluation* e = FindRecorded(result_.evaluations, r.id);
      if (e && r.id != kTuneDefaultsId) best.push_back(e->variant);
      if (best.size() == kParentsPerRound) break;
    }
    return best;
  }

  size_t VariantsRecorded() const {
    return static_cast<size_t>(std::count_if(
        result_.evaluations.begin(), result_.evaluations.end(), [](const TuneEvaluation& e) {
          return e.variant.id != kTuneDefaultsId && e.stage != TuneStage::kPending;
        }));
  }

  Status Ended(TuneBatchEnd end) {
    if (end == TuneBatchEnd::kStopped) return Stopped();
    if (end == TuneBatchEnd::kHalted) {
      result_.time_up = true;
      Progress(fmt::format("tune: --time {:.0f} s is up; no new variant started",
                           options_.time_limit_seconds));
    }
    return {};
  }

  Status Stopped() {
    result_.stopped = true;
    return {};
  }

  bool TimeLeft() const {
    return options_.time_limit_seconds <= 0 || clock_() - start_ < options_.time_limit_seconds;
  }

  Expected<TuneBatchEnd> Evaluate(const std::vector<TuneVariant>& variants,
                                  bool full_tests = false) {
    return evaluator_.Variants(Setup(full_tests), variants);
  }

  TuneEvaluateSetup Setup(bool full_tests) {
    TuneEvaluateSetup setup;
    setup.run_dir = result_.run_dir;
    setup.kbuild_exe = options_.kbuild_exe;
    setup.snapshot = &snapshot_;
    setup.max_spill_bytes = space_.max_spill_bytes;
    setup.build_jobs = options_.build_jobs;
    setup.filter = options_.filter.value_or(space_.bench_filter);
    setup.full_tests = full_tests || options_.full_tests == kTuneFullTestsAll;
    setup.test_filter = test_filter_;
    setup.build_tests = setup.full_tests || options_.full_tests > 0 || !test_filter_.empty();
    setup.may_start = [this] { return TimeLeft(); };
    setup.on_recorded = [this](const TuneEvaluation& e, int tests_passed) {
      Recorded(e, tests_passed);
    };
    return setup;
  }

  void Recorded(const TuneEvaluation& e, int tests_passed) {
    Replace(e);
    ++result_.evaluated_now;
    if (e.variant.id != kTuneDefaultsId) ++evaluated_variants_;
    Progress(ProgressLine(e, tests_passed));
  }

  void Replace(const TuneEvaluation& e) {
    auto& history = result_.evaluations;
    const auto same = std::find_if(history.begin(), history.end(), [&](const TuneEvaluation& h) {
      return h.variant.id == e.variant.id;
    });
    if (same != history.end()) {
      *same = e;
    } else {
      history.push_back(e);
    }
  }

  std::string ProgressLine(const TuneEvaluation& e, int tests_passed) const {
    const bool defaults = e.variant.id == kTuneDefaultsId;
    std::string line = defaults ? "tune: [defaults]"
                                : fmt::format("tune: [{}/{}] {} {}", VariantsRecorded(), budget_,
                                              e.variant.id, TuneValuesText(e.variant));
    if (e.stage == TuneStage::kBuildFailed) return line + ": build failed: " + e.reason + Eta();
    if (e.stage == TuneStage::kLost) return line + ": lost: " + e.reason + Eta();
    line += fmt::format(": built {:.1f} s", e.build_seconds);
    if (e.stage == TuneStage::kSpills) {
      return line + ", " + e.reason + " (over max-spill-bytes)" + Eta();
    }
    if (e.stage == TuneStage::kTestFailed) return line + ", test failed: " + e.reason + Eta();
    if (e.stage != TuneStage::kDone) return line + ", bench failed: " + e.reason + Eta();
    if (e.tests == TuneTests::kFull) line += fmt::format(", {} tests passed", tests_passed);
    if (e.tests == TuneTests::kFiltered)
      line += fmt::format(", {} filtered tests passed", tests_passed);
    if (defaults) return line + fmt::format(", {} timed cases", e.cases.size());
    return line + ScoreText(e) + Eta();
  }

  std::string ScoreText(const TuneEvaluation& e) const {
    auto ranking = RankVariants(result_.evaluations, kTuneDefaultsId);
    if (!ranking) return "";
    for (const auto& r : ScoredByRank(*ranking)) {
      if (r.id == e.variant.id) return fmt::format(", geomean {:.2f}x vs defaults", r.score);
    }
    for (const auto& u : ranking->unranked) {
      if (u.id == e.variant.id) return ", not ranked: " + u.reason;
    }
    return "";
  }

  // Mean seconds per variant so far x the variants left in the budget.
  std::string Eta() const {
    const size_t done = VariantsRecorded();
    if (evaluated_variants_ == 0 || done >= budget_) return "";
    const double each = (clock_() - phase_start_) / evaluated_variants_;
    return ", " + TuneTimeLeftText(each * static_cast<double>(budget_ - done));
  }

  void Progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  TuneEvaluator& evaluator_;
  const TuneOptions& options_;
  const TuneSpace space_;
  const ProjectSnapshot snapshot_;
  TuneRunResult& result_;
  std::function<double()> clock_;
  double start_ = 0;
  double phase_start_ = 0;         // when the first variant after the defaults started
  size_t evaluated_variants_ = 0;  // variants (not the defaults) this invocation recorded
  size_t budget_ = 0;
  std::string test_filter_;
};

}  // namespace

std::string TuneValuesText(const TuneVariant& variant) {
  if (variant.values.empty()) return "(defaults)";
  std::string text;
  for (const auto& [name, value] : variant.values) {
    text += (text.empty() ? "" : " ") + name + "=" + value;
  }
  return text;
}

Expected<TuneRunResult> RunTune(FileSystem& fs, ProcessRunner& runner, const TuneOptions& options) {
  if (Status s = CheckOptions(options); !s) return s.error();
  if (fs.KindOf(options.project_dir / "build.toml") != FileKind::kRegular) {
    return MakeError(ExitCode::kUsage,
                     "no build.toml in " + options.project_dir.string() + ": not a kbuild project",
                     "run kbuild tune in a project folder (kbuild init makes one), or pass -C DIR");
  }
  auto space = ReadTuneSpace(fs, options.project_dir);
  if (!space) return space.error();
  TuneRunResult result;
  auto run_dir = options.resume ? ResumeTuneRunFolder(fs, options.project_dir, *options.resume)
                                : NewTuneRunFolder(fs, options.project_dir, options.stamp);
  if (!run_dir) return run_dir.error();
  result.run_dir = *run_dir;
  const fs::path history_file = result.run_dir / kTuneHistoryFile;
  auto history = ReadHistory(fs, history_file);
  if (!history) return history.error();
  result.evaluations = std::move(history->evaluations);
  result.warnings = std::move(history->warnings);
  // An empty history at once: a run killed during the first build can still be resumed.
  if (!options.resume) {
    if (Status s = fs.Write(history_file, ""); !s) return s.error();
  }
  auto snapshot = SnapshotProject(fs, options.project_dir);
  if (!snapshot) return snapshot.error();
  if (!snapshot->skipped_links.empty()) {
    result.warnings.push_back(
        fmt::format("{} symbolic link(s) not copied into the variants' projects (first: {})",
                    snapshot->skipped_links.size(), snapshot->skipped_links.front().string()));
  }
  std::unique_ptr<TuneEvaluator> evaluator;
  if (options.make_evaluator) {
    auto made = options.make_evaluator(result.run_dir, *snapshot);
    if (!made) return made.error();
    evaluator = std::move(*made);
  } else {
    evaluator = std::make_unique<LocalTuneEvaluator>(fs, runner, options.build_jobs);
  }
  TuneRun run(*evaluator, options, std::move(*space), std::move(*snapshot), result);
  if (Status s = run.Run(); !s) return s.error();
  WriteTuneConclusions(fs, options, result);
  return result;
}

}  // namespace kb
