#include "core/optimize_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "core/json_fields.h"
#include "core/message_text.h"
#include "core/optimize_history.h"
#include "core/optimize_workers.h"
#include "core/report.h"
#include "core/run_folder.h"
#include "core/sha256.h"
#include "core/stop_signal.h"
#include "core/tune_space.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPlannedFile = "planned.json";
constexpr const char* kProfileFile = "profile.md";

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The archive's key: what the candidate compiles (macro values, file contents).
std::string Signature(const Candidate& c) {
  std::string text;
  for (const auto& [name, value] : c.defines) text += "D" + name + "=" + value + "\n";
  for (const auto& f : c.files) text += "F" + f.relative.generic_string() + "\n" + f.content + "\n";
  return Sha256Hex(text).substr(0, 16);
}

std::string AttemptId(int n) { return fmt::format("a{:04d}", n); }

class OptimizeRun {
 public:
  OptimizeRun(FileSystem& fs, Proposer& proposer, CandidateEvaluator& evaluator,
              const OptimizeOptions& options, OptimizeRunResult& r)
      : fs_(fs),
        proposer_(proposer),
        evaluator_(evaluator),
        options_(options),
        task_(options.task),
        r_(r),
        model_(options.islands, kOptimizeBaselineId),
        pool_(options.worker_devices) {
    clock_ = options.seconds_now ? options.seconds_now : SteadySeconds;
    start_ = clock_();
  }

  Status Run() {
    if (Status s = fs_.MakeDirectories(r_.run_dir); !s) return s;
    auto history = ReadAttempts(fs_, r_.run_dir / kOptimizeHistoryFile);
    if (!history) return history.error();
    r_.warnings = history->warnings;
    auto failures = ReadWorkerFailures(fs_, r_.run_dir);
    if (!failures) return failures.error();
    r_.worker_failures = std::move(*failures);
    for (const Attempt& a : history->attempts) {
      auto loaded = Replay(a);
      if (!loaded) return loaded;
    }
    if (!Find(kOptimizeBaselineId)) {
      Candidate baseline;
      baseline.id = kOptimizeBaselineId;
      baseline.origin = CandidateOrigin::kBaseline;
      baseline.summary = "the project as it is";
      Progress("optimize: [baseline] the project as it is");
      if (Status s = EvaluateAndRecord(baseline, 0, std::nullopt); !s || r_.stopped) return s;
    }
    const Attempt* baseline = Find(kOptimizeBaselineId);
    if (options_.baseline_on_each_worker && pool_.live() > 1 && baseline &&
        baseline->verdict == AttemptVerdict::kOk && model_.recorded() < options_.budget) {
      if (Status s = TimeBaselineOnEachWorker(); !s || r_.stopped) return s;
    }
    search_start_ = clock_();
    search_start_recorded_ = r_.attempted_now;
    while (model_.recorded() < options_.budget) {
      if (StopSignal() != 0) {
        r_.stopped = true;
        break;
      }
      if (options_.time_limit_seconds > 0 && clock_() - start_ >= options_.time_limit_seconds) {
        r_.time_up = true;
        break;
      }
      Status s = options_.worker_devices.size() > 1 ? AttemptBatch() : Attempt1();
      if (!s || r_.stopped || !r_.exhausted.empty()) return s;
    }
    return {};
  }

 private:
  void Progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  const Attempt* Find(const std::string& id) const {
    for (const auto& a : r_.attempts) {
      if (a.candidate.id == id) return &a;
    }
    return nullptr;
  }

  fs::path AttemptDir(const std::string& id) const { return r_.run_dir / "attempts" / id; }

  // The candidate with its files' contents, read back from attempts/<id>/candidate/.
  Expected<Candidate> Load(const Candidate& recorded) {
    Candidate c = recorded;
    for (auto& f : c.files) {
      auto text =
          fs_.ReadAtMost(AttemptDir(c.id) / "candidate" / f.relative, kMaxProposedFileBytes);
      if (!text) return text.error();
      f.content = std::move(*text);
    }
    return c;
  }

  Status Replay(const Attempt& recorded) {
    Attempt a = recorded;
    if (a.verdict != AttemptVerdict::kProposerFailed) {
      auto loaded = Load(a.candidate);
      if (!loaded) return loaded.error();
      a.candidate = std::move(*loaded);
    }
    Remember(std::move(a));
    return {};
  }

  void Remember(Attempt a) {
    if (a.candidate.id == kOptimizeBaselineId) {
      task_.baseline_cases = a.cases;
      if (a.verdict == AttemptVerdict::kOk) reference_ = a;
    }
    model_.Record(a, Signature(a.candidate));
    tried_.insert(VariantId(TuneVariant{a.candidate.defines, ""}));
    r_.attempts.push_back(std::move(a));
  }

  Status SaveCandidate(const Candidate& c, double seconds, const std::optional<AttemptCost>& cost) {
    const fs::path dir = AttemptDir(c.id);
    for (const auto& f : c.files) {
      if (Status s = fs_.Write(dir / "candidate" / f.relative, f.content); !s) return s;
    }
    Attempt planned;
    planned.candidate = c;
    planned.propose_seconds = seconds;
    planned.cost = cost;
    return fs_.Write(dir / kPlannedFile, JsonText(AttemptJson(planned)) + "\n");
  }

  // A candidate saved by a run that was killed before recording it.
  std::optional<Attempt> SavedCandidate(const std::string& id) {
    const fs::path path = AttemptDir(id) / kPlannedFile;
    if (fs_.KindOf(path) != FileKind::kRegular) return std::nullopt;
    auto text = fs_.ReadAtMost(path, kMaxResultsBytes);
    if (!text) return std::nullopt;
    std::string problem;
    auto planned = AttemptFromJson(ParseUntrustedJson(*text), &problem);
    if (!planned || planned->candidate.id != id) return std::nullopt;
    auto loaded = Load(planned->candidate);
    if (!loaded) return std::nullopt;  // incomplete: propose again
    planned->candidate = std::move(*loaded);
    return planned;
  }

  // What proposing one planned attempt gave: a candidate to evaluate, or an
  // attempt judged already (the proposer failed).
  struct Proposed {
    Candidate candidate;
    double seconds = 0;
    std::optional<AttemptCost> cost;
    std::optional<Attempt> failed;  // proposer_failed: recorded without an evaluation
  };

  // Nothing when the run stops here (Ctrl-C, or the proposer has nothing new:
  // r_.stopped / r_.exhausted say which).
  Expected<std::optional<Proposed>> Propose(const PlannedAttempt& plan, const std::string& id) {
    const Attempt* parent = Find(plan.parent);
    const Attempt* failure = plan.repair > 0 ? Find(plan.repair_of) : nullptr;
    Candidate c;
    const Candidate* state = failure ? &failure->candidate : parent ? &parent->candidate : nullptr;
    if (state) {
      c.files = state->files;
      c.defines = state->defines;
    }
    c.id = id;
    c.island = plan.island;
    c.parent = plan.parent;
    c.repair = plan.repair;
    c.origin = plan.repair > 0    ? CandidateOrigin::kRepair
               : options_.builtin ? CandidateOrigin::kBuiltin
                                  : CandidateOrigin::kProposer;
    Progress(fmt::format("optimize: [{} island {}] {} from {}{}", id, plan.island + 1,
                         plan.repair > 0 ? "repair " + std::to_string(plan.repair) : "propose",
                         plan.parent, Elapsed()));
    if (auto saved = SavedCandidate(id)) {
      Progress("optimize: [" + id + "] evaluating the candidate saved before the interruption");
      return std::optional<Proposed>(
          Proposed{saved->candidate, saved->propose_seconds, saved->cost, std::nullopt});
    }
    if (Status s = Profile(plan.parent); !s) return s.error();
    if (r_.stopped) return std::optional<Proposed>();
    const auto profile = profiles_.find(plan.parent);
    task_.profile_text = profile == profiles_.end() ? "" : profile->second;
    ProposalRequest request;
    request.task = &task_;
    request.planned = c;
    request.attempt_dir = AttemptDir(id);
    request.best = BestFiles(c);
    request.parent = parent;
    if (parent != nullptr && !parent->candidate.parent.empty()) {
      for (const auto& a : r_.attempts) {
        if (a.candidate.id == parent->candidate.parent) request.grandparent = &a;
      }
    }
    request.failure = failure;
    request.tried = tried_;
    for (const auto& a : r_.attempts) {
      if (a.candidate.island == plan.island && a.candidate.origin != CandidateOrigin::kBaseline) {
        request.recent.push_back(&a);
      }
    }
    if (request.recent.size() > kHistoryShown) {
      request.recent.erase(request.recent.begin(), request.recent.end() - kHistoryShown);
    }
    auto proposal = proposer_.Propose(request);
    if (!proposal) return proposal.error();
    if (proposal->stopped || StopSignal() != 0) {
      r_.stopped = true;
      return std::optional<Proposed>();
    }
    if (proposal->exhausted) {
      r_.exhausted = OneLine(proposal->failure);
      Progress("optimize: " + r_.exhausted + "; the run ends");
      return std::optional<Proposed>();
    }
    if (!proposal->candidate) {
      Attempt a;
      a.candidate = c;
      a.candidate.files.clear();
      a.verdict = AttemptVerdict::kProposerFailed;
      a.first_error = OneLine(proposal->failure);
      a.propose_seconds = proposal->seconds;
      a.cost = proposal->cost;
      return std::optional<Proposed>(
          Proposed{a.candidate, proposal->seconds, proposal->cost, std::move(a)});
    }
    if (Status s = SaveCandidate(*proposal->candidate, proposal->seconds, proposal->cost); !s) {
      return s.error();
    }
    // Taken now, not when recorded: the next proposal of the same batch must not repeat it.
    tried_.insert(VariantId(TuneVariant{proposal->candidate->defines, ""}));
    return std::optional<Proposed>(
        Proposed{*proposal->candidate, proposal->seconds, proposal->cost, std::nullopt});
  }

  Status Attempt1() {
    auto proposed = Propose(model_.Next(), AttemptId(model_.recorded() + 1));
    if (!proposed) return proposed.error();
    if (!*proposed) return {};
    Proposed& p = **proposed;
    if (p.failed) return Record(std::move(*p.failed));
    return EvaluateAndRecord(p.candidate, p.seconds, p.cost);
  }

  // One attempt per live worker (GPU) at once, on distinct islands: proposed
  // one after the other, evaluated together (worker n sees GPU n only),
  // recorded in attempt order. A failed worker's candidate is judged again on
  // another (optimize_workers.h). Stopped midway, or with no worker left, the
  // judged prefix is recorded and the rest, saved, is judged on --resume
  // without asking the proposer again.
  Status AttemptBatch() {
    const int workers = pool_.live();
    const int left = options_.budget - model_.recorded();
    const std::vector<PlannedAttempt> plans = model_.NextBatch(std::min(workers, left));
    std::vector<Proposed> batch;
    for (size_t j = 0; j < plans.size(); ++j) {
      auto proposed = Propose(plans[j], AttemptId(model_.recorded() + 1 + static_cast<int>(j)));
      if (!proposed) return proposed.error();
      if (!*proposed) break;
      batch.push_back(std::move(**proposed));
    }
    if (r_.stopped) return {};
    std::vector<Candidate> candidates;
    std::vector<fs::path> attempt_dirs;
    for (const Proposed& p : batch) {
      if (p.failed) continue;
      candidates.push_back(p.candidate);
      attempt_dirs.push_back(AttemptDir(p.candidate.id));
    }
    if (!candidates.empty()) {
      Progress(fmt::format("optimize: evaluating {} candidate{} at once, one per GPU{}",
                           candidates.size(), candidates.size() == 1 ? "" : "s", Elapsed()));
    }
    auto evaluated =
        EvaluateOnWorkers(evaluator_, pool_, candidates, attempt_dirs,
                          [this](const WorkerFailure& f, AfterWorkerFailure next) {
                            return RecordWorkerFailure(f, AfterWorkerFailureText(next, f.attempt));
                          });
    if (!evaluated) return evaluated.error();
    size_t next = 0;
    for (Proposed& p : batch) {
      if (p.failed) {
        if (Status s = Record(std::move(*p.failed)); !s || r_.stopped) return s;
        continue;
      }
      std::optional<Attempt>& result = evaluated->results[next++];
      if (!result && evaluated->workers_gone) return *evaluated->workers_gone;
      if (!result || StopSignal() != 0) {
        r_.stopped = true;
        return {};
      }
      if (Status s = ScoreAndRecord(p.candidate, p.seconds, p.cost, std::move(*result),
                                    evaluated->judged_by[next - 1]);
          !s || r_.stopped) {
        return s;
      }
    }
    return {};
  }

  // Every source the proposer may change, in the candidate's state (context/best/).
  std::vector<CandidateFile> BestFiles(const Candidate& c) const {
    std::vector<CandidateFile> best;
    for (const auto& source : task_.sources) {
      CandidateFile file{source, ""};
      auto changed = std::find_if(c.files.begin(), c.files.end(),
                                  [&](const CandidateFile& f) { return f.relative == source; });
      if (changed != c.files.end()) {
        file.content = changed->content;
      } else if (fs_.KindOf(task_.project_dir / source) == FileKind::kRegular) {
        auto text = fs_.ReadAtMost(task_.project_dir / source, kMaxProposedFileBytes);
        if (!text) continue;
        file.content = std::move(*text);
      } else {
        continue;  // not written yet (a blank project)
      }
      best.push_back(std::move(file));
    }
    return best;
  }

  Status EvaluateAndRecord(const Candidate& c, double propose_seconds,
                           const std::optional<AttemptCost>& cost) {
    EvaluationSlot slot;
    slot.attempt_dir = AttemptDir(c.id);
    auto evaluated = evaluator_.Evaluate(c, slot);
    if (!evaluated) return evaluated.error();
    if (!*evaluated || StopSignal() != 0) {
      r_.stopped = true;  // nothing recorded: --resume evaluates it again
      return {};
    }
    if (const std::string& why = (*evaluated)->worker_failure; !why.empty()) {
      // One GPU (or the baseline, on the inherited GPUs): nowhere else to judge it, and no
      // worker to retire (workers.jsonl is for the workers of several GPUs).
      return MakeError(ExitCode::kEnvironment,
                       c.id + " could not be judged: " + why +
                           " (not the candidate's doing); nothing was recorded for it",
                       "kbuild doctor says whether the GPU works (tests and benchmarks need "
                       "one); kbuild optimize --resume " +
                           r_.run_dir.string() + " judges " + c.id + " again");
    }
    return ScoreAndRecord(c, propose_seconds, cost, std::move(**evaluated));
  }

  // The baseline timed again on every worker's GPU at once (attempts/baseline/workers/<n>/),
  // so each candidate is scored against the GPU that judged it, and how far the GPUs agree is
  // said (r_.gpu_baselines). Not kept: a resumed run times it again.
  Status TimeBaselineOnEachWorker() {
    const Attempt* baseline = Find(kOptimizeBaselineId);
    std::vector<Candidate> copies;
    std::vector<EvaluationSlot> slots;
    for (int worker : pool_.live_workers()) {
      copies.push_back(baseline->candidate);
      slots.push_back(pool_.SlotFor(
          worker, AttemptDir(kOptimizeBaselineId) / "workers" / std::to_string(worker)));
    }
    Progress(fmt::format("optimize: [baseline] timed on each of the {} GPUs{}", slots.size(),
                         Elapsed()));
    auto timed = EvaluateAll(evaluator_, copies, slots);
    if (!timed) return timed.error();
    for (size_t j = 0; j < slots.size(); ++j) {
      std::optional<Attempt>& result = (*timed)[j];
      if (!result || StopSignal() != 0) {
        r_.stopped = true;
        return {};
      }
      const int worker = slots[j].worker;
      GpuBaseline b{worker, pool_.device(worker), 0, ""};
      if (!result->worker_failure.empty()) {
        WorkerFailure f{worker, b.device, kOptimizeBaselineId, result->worker_failure};
        if (Status s = RecordWorkerFailure(f, "it is retired; its GPU has no baseline of its own");
            !s) {
          return s;
        }
        pool_.Retire(worker);
        b.problem = "its worker failed";
      } else if (result->verdict != AttemptVerdict::kOk) {
        b.problem = VerdictWord(result->verdict) + ": " + OneLine(result->first_error);
      } else {
        Attempt own = *result;
        own.candidate = baseline->candidate;
        Attempt named = own;  // ScoreAgainst tells the two apart by id
        named.candidate.id = "baseline-gpu-" + b.device;
        b.vs_run = ScoreAgainst(*reference_, named, &b.problem);
        if (b.vs_run > 0) worker_baselines_[worker] = std::move(own);
      }
      r_.gpu_baselines.push_back(std::move(b));
    }
    if (pool_.live() == 0) {
      return MakeError(ExitCode::kEnvironment,
                       "every worker of this run failed while timing the baseline",
                       "kbuild doctor says which GPUs work; kbuild optimize --resume " +
                           r_.run_dir.string() + " goes on");
    }
    Progress("optimize: the baseline on each GPU, against the run's: " +
             GpuBaselinesText(r_.gpu_baselines) +
             "; each candidate is scored against the baseline of the GPU that judged it");
    return {};
  }

  // A worker that failed (not its candidate): kept in workers.jsonl and the
  // run's result, and said, with what happens next.
  Status RecordWorkerFailure(const WorkerFailure& f, const std::string& next) {
    if (Status s = AppendWorkerFailure(fs_, r_.run_dir, f); !s) return s;
    r_.worker_failures.push_back(f);
    Progress("optimize: worker failed: " + WorkerFailureText(f) + "; " + next);
    return {};
  }

  // The evaluator's verdict of `c`, scored against the baseline (the one `worker`'s GPU
  // timed, when there is one), into the history.
  Status ScoreAndRecord(const Candidate& c, double propose_seconds,
                        const std::optional<AttemptCost>& cost, Attempt a, int worker = -1) {
    a.candidate = c;
    a.propose_seconds = propose_seconds;
    a.cost = cost;
    if (a.verdict == AttemptVerdict::kOk) {
      std::string why;
      const auto own = worker_baselines_.find(worker);
      const Attempt& reference = own != worker_baselines_.end() ? own->second
                                 : reference_                   ? *reference_
                                                                : a;  // the first ok one
      a.score = c.id == reference.candidate.id ? 1.0 : ScoreAgainst(reference, a, &why);
      if (a.score <= 0) {
        a.verdict = AttemptVerdict::kTestFailed;
        a.first_error = "not comparable with " + reference.candidate.id + ": " + why;
      } else if (!reference_) {
        reference_ = a;
      }
    }
    return Record(std::move(a));
  }

  Status Record(Attempt a) {
    Attempt line = a;
    if (Status s = AppendAttempt(fs_, r_.run_dir / kOptimizeHistoryFile, line); !s) return s;
    ++r_.attempted_now;
    const std::string what = a.verdict == AttemptVerdict::kOk
                                 ? fmt::format("ok {:.3f}x", a.score)
                                 : VerdictWord(a.verdict) + ": " + a.first_error;
    Remember(std::move(a));
    Progress(fmt::format("optimize: [{}] {} (best {:.3f}x {}, {} of {} attempts)",
                         line.candidate.id, what, model_.best_score(),
                         model_.best_id().empty() ? "-" : model_.best_id(), model_.recorded(),
                         options_.budget));
    for (const IslandState& island : model_.islands()) {
      if (island.best_id == line.candidate.id) return Profile(line.candidate.id);
    }
    return {};
  }

  // profile.md of an island's best (the baseline, a new best), made once and
  // kept as attempts/<id>/profile.md: a resumed run reads it back.
  Status Profile(const std::string& id) {
    const Attempt* a = Find(id);
    if (!options_.profile || !a || a->verdict != AttemptVerdict::kOk || profiles_.count(id)) {
      return {};
    }
    const fs::path path = AttemptDir(id) / kProfileFile;
    if (fs_.KindOf(path) == FileKind::kRegular) {
      if (auto text = fs_.ReadAtMost(path, kMaxProposedFileBytes)) {
        profiles_[id] = std::move(*text);
        return {};
      }
    }
    std::string text = "Not profiled: " + id + " has no performance case.\n";
    if (!a->cases.empty()) {
      Progress("optimize: [" + id + "] profile '" + a->cases.front().name + "'" + Elapsed());
      EvaluationSlot slot;
      slot.attempt_dir = AttemptDir(id);
      auto profiled = evaluator_.Profile(a->candidate, a->cases.front().name, slot);
      if (!profiled) return profiled.error();
      if (!*profiled || StopSignal() != 0) {
        r_.stopped = true;
        return {};
      }
      text = std::move(**profiled);
    }
    if (Status s = fs_.Write(path, text); !s) return s;
    profiles_[id] = std::move(text);
    return {};
  }

  std::string Elapsed() const { return fmt::format(", {:.0f} s in", clock_() - start_); }

  FileSystem& fs_;
  Proposer& proposer_;
  CandidateEvaluator& evaluator_;
  const OptimizeOptions& options_;

 public:
  // What the attempts after the baseline took (RunOptimize reads it when Run returns).
  void MeasureSearch() {
    if (search_start_ < 0) return;
    r_.searched_now = r_.attempted_now - search_start_recorded_;
    r_.search_seconds = clock_() - search_start_;
  }

  ProposerTask task_;
  OptimizeRunResult& r_;
  IslandModel model_;

 private:
  WorkerPool pool_;
  std::map<int, Attempt> worker_baselines_;  // worker -> the baseline its GPU timed
  std::optional<Attempt> reference_;
  std::set<std::string> tried_;
  std::map<std::string, std::string> profiles_;  // attempt id -> profile.md
  std::function<double()> clock_;
  double start_ = 0;
  double search_start_ = -1;  // when the attempts after the baseline began; -1: not yet
  int search_start_recorded_ = 0;
};

}  // namespace

Expected<fs::path> NewOptimizeRunFolder(const FileSystem& fs, const fs::path& project,
                                        const std::string& stamp) {
  return NewRunFolder(fs, project, "optimize", stamp);
}

Expected<fs::path> ResumeOptimizeRunFolder(const FileSystem& fs, const fs::path& project,
                                           const fs::path& given) {
  return ResumeRunFolder(fs, project, given, "optimize", kOptimizeHistoryFile);
}

OptimizeTotals TotalsOf(const std::vector<Attempt>& attempts) {
  OptimizeTotals t;
  for (const auto& a : attempts) {
    if (a.candidate.origin == CandidateOrigin::kBaseline) continue;
    ++t.attempts;
    t.ok += a.verdict == AttemptVerdict::kOk ? 1 : 0;
    t.repairs += a.candidate.repair > 0 ? 1 : 0;
    t.propose_seconds += a.propose_seconds;
    t.build_seconds += a.build_seconds;
    t.test_seconds += a.test_seconds;
    t.bench_seconds += a.bench_seconds;
    if (a.cost) {
      ++t.with_cost;
      t.cost.tokens += a.cost->tokens;
      t.cost.usd += a.cost->usd;
      t.cost.seconds += a.cost->seconds;
    }
  }
  return t;
}

Expected<OptimizeRunResult> RunOptimize(FileSystem& fs, Proposer& proposer,
                                        CandidateEvaluator& evaluator,
                                        const OptimizeOptions& options) {
  OptimizeRunResult r;
  r.run_dir = options.run_dir;
  OptimizeRun run(fs, proposer, evaluator, options, r);
  if (Status s = run.Run(); !s) return s.error();
  run.MeasureSearch();
  r.best_id = run.model_.best_id();
  r.best_score = run.model_.best_score();
  r.totals = TotalsOf(r.attempts);
  r.migrations = run.model_.migrations();
  r.islands = run.model_.islands();
  r.archive = run.model_.archive();
  if (Status s = WriteOptimizeConclusions(fs, r); !s) return s.error();
  return r;
}

}  // namespace kb
