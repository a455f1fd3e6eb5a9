#include "core/queue_evaluator.h"

#include <fmt/format.h>

#include "core/json_fields.h"
#include "core/optimize_history.h"
#include "core/run_folder.h"

namespace kb {

namespace fs = std::filesystem;
using nlohmann::json;

json CandidatePayload(const Candidate& candidate) {
  Attempt planned;
  planned.candidate = candidate;
  json payload = AttemptJson(planned);
  json contents = json::array();
  for (const auto& f : candidate.files) contents.push_back(f.content);
  payload["contents"] = contents;
  return payload;
}

std::optional<Candidate> CandidateFromPayload(const json& payload, std::string* problem) {
  std::optional<Attempt> planned = AttemptFromJson(payload, problem);
  if (!planned) return std::nullopt;
  Candidate c = std::move(planned->candidate);
  const json contents = ArrayAt(payload, "contents");
  if (contents.size() != c.files.size()) {
    *problem = fmt::format("{} files but {} contents", c.files.size(), contents.size());
    return std::nullopt;
  }
  for (size_t i = 0; i < c.files.size(); ++i) {
    if (!contents[i].is_string()) {
      *problem = "the content of " + c.files[i].relative.generic_string() + " is not a string";
      return std::nullopt;
    }
    c.files[i].content = contents[i].get<std::string>();
  }
  return c;
}

Attempt AttemptFromDoneRecord(const json& record, const Candidate& candidate) {
  std::string problem = "the record holds neither an attempt nor verdict \"lost\"";
  std::optional<Attempt> worker;
  if (StringOr(record, "verdict") != "lost" && record.contains("attempt")) {
    worker = AttemptFromJson(record["attempt"], &problem);
  }
  Attempt a;
  if (worker) a = std::move(*worker);
  a.candidate = candidate;
  if (!worker) {
    a.verdict = AttemptVerdict::kLost;
    a.first_error =
        StringOr(record, "verdict") == "lost"
            ? StringOr(record, "reason", "lost in the queue")
            : "unreadable result from worker '" + StringOr(record, "worker") + "': " + problem;
  }
  return a;
}

QueueEvaluator::QueueEvaluator(FileSystem& fs, fs::path queue_dir, QueueTimings timings,
                               QueueClock clock)
    : client_(fs, std::move(queue_dir), timings, std::move(clock)) {}

Expected<std::optional<Attempt>> QueueEvaluator::Evaluate(const Candidate& candidate,
                                                          const EvaluationSlot&) {
  if (Status s = client_.Submit(
          candidate.id, {{"kind", kCandidateWorkKind}, {"candidate", CandidatePayload(candidate)}});
      !s) {
    return s.error();
  }
  auto done = client_.WaitForAny({candidate.id});
  if (!done) return done.error();
  if (!*done) return std::optional<Attempt>();
  return std::optional<Attempt>(AttemptFromDoneRecord((*done)->record, candidate));
}

Expected<std::optional<std::string>> QueueEvaluator::Profile(const Candidate&,
                                                             const std::string& case_name,
                                                             const EvaluationSlot&) {
  return std::optional<std::string>("Not profiled (kbuild profile --case '" + case_name +
                                    "'): queue workers do not profile yet\n");
}

WorkReader CandidateWorkReader(CandidateEvaluator& evaluator, fs::path run_dir, FileSystem& fs,
                               StagedWorkSetup staged) {
  return [&evaluator, &fs, run_dir = std::move(run_dir), staged = std::move(staged)](
             const ClaimedWork& work, WorkStage stage,
             std::string* problem) -> std::optional<PreparedWork> {
    std::optional<Candidate> candidate =
        CandidateFromPayload(ObjectAt(work.payload, "candidate"), problem);
    if (!candidate) return std::nullopt;
    if (candidate->id != work.id) {
      *problem = "the candidate's id '" + candidate->id + "' is not the queue id";
      return std::nullopt;
    }
    *problem = RunSubfolderProblem(fs, run_dir, fs::path("attempts") / candidate->id);
    if (!problem->empty()) return std::nullopt;
    return PreparedWork(
        [&evaluator, &fs, run_dir, staged, stage, work,
         candidate = std::move(*candidate)]() -> Expected<std::optional<WorkResult>> {
          EvaluationSlot slot;
          slot.attempt_dir = run_dir / "attempts" / candidate.id;
          CandidateStages stages = CandidateStages::kAll;
          if (stage != WorkStage::kWhole) {
            slot.copy = staged.CopyOf(candidate.id);
            stages = stage == WorkStage::kBuild ? CandidateStages::kBuild : CandidateStages::kGpu;
          }
          if (stage == WorkStage::kGpu) {
            auto lost = FetchOrLose(fs, staged, work);
            if (!lost) return lost.error();
            if (*lost) return lost;
          }
          auto attempt = evaluator.EvaluateStages(candidate, slot, stages);
          if (!attempt) return attempt.error();
          if (!*attempt) return std::optional<WorkResult>();
          if (const std::string& why = (*attempt)->worker_failure; !why.empty()) {
            // This worker failed, not the candidate: it ends, and the claim it leaves
            // goes back to the queue once its lease runs out, for another worker.
            return MakeError(ExitCode::kEnvironment,
                             "this worker failed while judging " + candidate.id + ": " + why,
                             "its claim goes back to the queue after the lease; kbuild doctor "
                             "says whether this host's GPU works");
          }
          if (stage == WorkStage::kBuild && (*attempt)->verdict == AttemptVerdict::kOk) {
            auto result = BuiltWorkResult(fs, staged, candidate.id,
                                          {{"build_seconds", (*attempt)->build_seconds}});
            if (!result) return result.error();
            return std::optional<WorkResult>(*result);
          }
          if (stage == WorkStage::kGpu) {
            (*attempt)->build_seconds = NumberOr(work.built, "build_seconds");
            (void)fs.Remove(slot.copy.parent_path());
          }
          return std::optional<WorkResult>(
              WorkResult{{{"attempt", AttemptJson(**attempt)}}, VerdictWord((*attempt)->verdict)});
        });
  };
}

}  // namespace kb
