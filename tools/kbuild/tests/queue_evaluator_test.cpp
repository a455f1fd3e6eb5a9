// Candidates through the work queue (queue_evaluator.h) on a locked MemoryFileSystem with a
// fake clock: the payload round trip, a run and a worker in two threads, a silent worker's
// claim re-queued until the attempt is lost, a resumed run that finds its result, and the
// worker's handling of bad payloads, the stop file and idleness.
#include "core/queue_evaluator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <utility>

#include "core/optimize_history.h"
#include "queue_fakes.h"
#include "tune_fakes.h"

namespace kb {
namespace {

using nlohmann::json;
using queue_fakes::FakeClock;

Candidate MakeCandidate(const std::string& id) {
  Candidate c;
  c.id = id;
  c.island = 1;
  c.parent = "baseline";
  c.origin = CandidateOrigin::kBuiltin;
  c.files = {{"csrc/op.cu", "__global__ void k() {}\n"}, {"csrc/op.h", "#pragma once\n"}};
  c.defines = {{"TILE", "64"}};
  c.summary = "set TILE=64";
  return c;
}

// Evaluates every candidate as ok with one case whose time is its TILE value.
class FakeEvaluator final : public CandidateEvaluator {
 public:
  Expected<std::optional<Attempt>> Evaluate(const Candidate& c,
                                            const EvaluationSlot& slot) override {
    seen.push_back(c);
    slots.push_back(slot);
    if (during) during(c);
    Attempt a;
    a.candidate = c;
    if (!failing_worker.empty()) {  // this worker's GPU fails once
      a.verdict = AttemptVerdict::kLost;
      a.worker_failure = std::exchange(failing_worker, "");
      return std::optional<Attempt>(a);
    }
    a.tests_passed = 12;
    a.cases = {{"op/64 bf16", std::stod(c.defines.at(0).second), 50, 1e6}};
    return std::optional<Attempt>(a);
  }
  Expected<std::optional<std::string>> Profile(const Candidate&, const std::string&,
                                               const EvaluationSlot&) override {
    return std::optional<std::string>("");
  }
  std::vector<Candidate> seen;
  std::vector<EvaluationSlot> slots;
  std::function<void(const Candidate&)> during;
  std::string failing_worker;  // the next evaluation's Attempt::worker_failure
};

TEST(CandidatePayload, RoundTripsFilesDefinesAndIdentity) {
  const Candidate c = MakeCandidate("a0003");
  std::string problem;
  auto back = CandidateFromPayload(json::parse(CandidatePayload(c).dump()), &problem);
  ASSERT_TRUE(back) << problem;
  EXPECT_EQ(back->id, "a0003");
  EXPECT_EQ(back->island, 1);
  EXPECT_EQ(back->origin, CandidateOrigin::kBuiltin);
  ASSERT_EQ(back->files.size(), 2u);
  EXPECT_EQ(back->files[0].relative, "csrc/op.cu");
  EXPECT_EQ(back->files[0].content, c.files[0].content);
  EXPECT_EQ(back->defines, c.defines);
}

TEST(CandidatePayload, RefusesPathsOutsideTheProjectAndMissingContents) {
  json payload = CandidatePayload(MakeCandidate("a0001"));
  json escaping = payload;
  escaping["files"][0] = "../../home/user/.bashrc";
  std::string problem;
  EXPECT_FALSE(CandidateFromPayload(escaping, &problem));
  EXPECT_NE(problem.find("files"), std::string::npos) << problem;
  json short_contents = payload;
  short_contents["contents"].erase(1);
  EXPECT_FALSE(CandidateFromPayload(short_contents, &problem));
  EXPECT_EQ(problem, "2 files but 1 contents");
}

// What `kbuild worker` reads a candidate payload with, evaluating through `inner`.
std::map<std::string, WorkReader> Readers(CandidateEvaluator& inner, FileSystem& fs) {
  return {{kCandidateWorkKind,
           CandidateWorkReader(inner, "/p/results/optimize-1", fs,
                               {"/p/results/optimize-1/queue", "/stage", "node1-gpu0"})}};
}

class QueueEvaluatorTest : public ::testing::Test {
 protected:
  tune_fakes::LockedFileSystem fs_;
  FakeClock clock_;
  const std::filesystem::path queue_dir_ = "/p/results/optimize-1/queue";
  QueueWorkerOptions WorkerOptions(const std::string& name) {
    QueueWorkerOptions o;
    o.name = name;
    o.idle_exit_seconds = 30;
    o.heartbeat_seconds = 5;
    return o;
  }
};

TEST_F(QueueEvaluatorTest, AWorkerInAnotherThreadEvaluatesTheCandidateOnce) {
  FakeEvaluator inner;
  QueueEvaluator run(fs_, queue_dir_, {}, clock_.Clock());
  Expected<QueueWorkerSummary> summary = QueueWorkerSummary{};
  std::thread worker([&] {
    summary = RunQueueWorker(fs_, queue_dir_, Readers(inner, fs_), WorkerOptions("node1-gpu0"),
                             clock_.Clock());
  });
  auto got = run.Evaluate(MakeCandidate("a0001"), {});
  worker.join();
  ASSERT_TRUE(got.ok()) << got.error().Located();
  ASSERT_TRUE(*got);
  EXPECT_EQ((*got)->verdict, AttemptVerdict::kOk);
  EXPECT_EQ((*got)->tests_passed, 12);
  ASSERT_EQ((*got)->cases.size(), 1u);
  EXPECT_EQ((*got)->cases[0].median_us, 64);
  EXPECT_EQ((*got)->candidate.files[0].content, "__global__ void k() {}\n");  // ours, whole

  ASSERT_TRUE(summary.ok()) << summary.error().Located();
  EXPECT_EQ(summary->evaluated, 1);
  EXPECT_EQ(summary->why_ended, "nothing pending for 30 s");
  ASSERT_EQ(inner.seen.size(), 1u);
  EXPECT_EQ(inner.seen[0].files[1].content, "#pragma once\n");
  EXPECT_EQ(inner.slots[0].attempt_dir, "/p/results/optimize-1/attempts/a0001");
  auto counts = run.Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->done, 1u);
  EXPECT_EQ(counts->pending + counts->claimed, 0u);
}

// A worker claims the attempt and dies (no heartbeat): the run re-queues it after the lease,
// twice, then records it lost with the reason; the islands do not send it to repair.
TEST_F(QueueEvaluatorTest, ASilentWorkersClaimIsRetriedThenLost) {
  WorkQueue dead_worker(fs_, queue_dir_);
  int claims = 0;
  clock_.on_sleep = [&] {
    auto claimed = dead_worker.Claim("dead-node");
    if (claimed.ok() && *claimed) ++claims;
  };
  QueueEvaluator run(fs_, queue_dir_, {.poll_seconds = 50, .lease_seconds = 120, .max_retries = 2},
                     clock_.Clock());
  auto got = run.Evaluate(MakeCandidate("a0002"), {});
  ASSERT_TRUE(got.ok()) << got.error().Located();
  ASSERT_TRUE(*got);
  EXPECT_EQ((*got)->verdict, AttemptVerdict::kLost);
  EXPECT_EQ(claims, 3);  // the first claim and two retries
  EXPECT_NE((*got)->first_error.find("worker dead-node sent no heartbeat after 2 retries"),
            std::string::npos)
      << (*got)->first_error;
  EXPECT_EQ(VerdictWord((*got)->verdict), "lost");
}

// A worker whose GPU fails while judging (a child killed, no usable GPU) ends with exit 4
// instead of blaming the candidate; its claim goes back after the lease and another worker's
// result is the attempt's, recorded once.
TEST_F(QueueEvaluatorTest, AWorkerWhoseGpuFailsEndsAndAnotherJudgesItsClaim) {
  FakeEvaluator inner;
  inner.failing_worker = "kbuild test was killed by signal 9";
  WorkQueue queue(fs_, queue_dir_);
  FakeClock worker_clock;
  std::optional<Expected<QueueWorkerSummary>> failed;
  int other_claims = 0;
  clock_.on_sleep = [&] {
    if (!failed) {
      worker_clock.seconds = clock_.seconds.load();
      failed = RunQueueWorker(fs_, queue_dir_, Readers(inner, fs_), WorkerOptions("node1-gpu1"),
                              worker_clock.Clock());
      return;
    }
    (void)queue.Heartbeat("node2-gpu0", std::nullopt, clock_.seconds.load());
    auto claimed = queue.Claim("node2-gpu0");
    if (!claimed.ok() || !*claimed) return;
    ++other_claims;
    Attempt a;
    a.candidate = MakeCandidate("a0007");
    a.tests_passed = 3;
    (void)queue.Complete("node2-gpu0", "a0007", {{"attempt", AttemptJson(a)}});
  };
  QueueEvaluator run(fs_, queue_dir_, {.poll_seconds = 50, .lease_seconds = 120, .max_retries = 2},
                     clock_.Clock());
  auto got = run.Evaluate(MakeCandidate("a0007"), {});
  ASSERT_TRUE(got.ok()) << got.error().Located();
  ASSERT_TRUE(*got);
  EXPECT_EQ((*got)->verdict, AttemptVerdict::kOk);
  EXPECT_EQ((*got)->tests_passed, 3) << "the second worker's result";
  ASSERT_TRUE(failed);
  ASSERT_FALSE(failed->ok());
  EXPECT_EQ(failed->error().code, ExitCode::kEnvironment);
  EXPECT_EQ(failed->error().message,
            "this worker failed while judging a0007: kbuild test was killed by signal 9");
  EXPECT_EQ(inner.seen.size(), 1u);
  EXPECT_EQ(other_claims, 1);
  auto counts = run.Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->done, 1u);
  EXPECT_EQ(counts->pending + counts->claimed, 0u);
}

TEST_F(QueueEvaluatorTest, AResumedRunTakesAResultAlreadyDoneWithoutQueueingAgain) {
  WorkQueue queue(fs_, queue_dir_);
  Attempt earlier;
  earlier.candidate = MakeCandidate("a0004");
  earlier.verdict = AttemptVerdict::kTestFailed;
  earlier.first_error = "RmsNorm.Bf16: mismatch at 17";
  ASSERT_TRUE(queue.Complete("node2", "a0004", {{"attempt", AttemptJson(earlier)}}).ok());
  QueueEvaluator run(fs_, queue_dir_, {}, clock_.Clock());
  auto got = run.Evaluate(MakeCandidate("a0004"), {});
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ((*got)->verdict, AttemptVerdict::kTestFailed);
  EXPECT_EQ((*got)->first_error, "RmsNorm.Bf16: mismatch at 17");
  EXPECT_FALSE(fs_.Exists(queue_dir_ / "pending" / "a0004.json"));
}

TEST_F(QueueEvaluatorTest, AResumedRunWaitsForAnAttemptStillClaimedInsteadOfQueueingItTwice) {
  WorkQueue queue(fs_, queue_dir_);
  ASSERT_TRUE(queue.Enqueue(
      "a0005", {{"kind", "evaluate"}, {"candidate", CandidatePayload(MakeCandidate("a0005"))}}));
  // As RunQueueWorker does: a heartbeat first, then the claim.
  ASSERT_TRUE(queue.Heartbeat("slow-node", std::nullopt, clock_.seconds.load()));
  ASSERT_TRUE(queue.Claim("slow-node").ok());
  // The claimed worker finishes while the resumed run waits.
  clock_.on_sleep = [&] {
    Attempt a;
    a.candidate = MakeCandidate("a0005");
    (void)queue.Heartbeat("slow-node", std::string("a0005"), clock_.seconds.load());
    (void)queue.Complete("slow-node", "a0005", {{"attempt", AttemptJson(a)}});
  };
  QueueEvaluator run(fs_, queue_dir_, {}, clock_.Clock());
  auto got = run.Evaluate(MakeCandidate("a0005"), {});
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ((*got)->verdict, AttemptVerdict::kOk);
  auto counts = run.Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->done, 1u);
  EXPECT_EQ(counts->pending, 0u);
}

TEST_F(QueueEvaluatorTest, TheWorkerRecordsAnUnreadablePayloadAsLostAndGoesOn) {
  WorkQueue queue(fs_, queue_dir_);
  json bad = CandidatePayload(MakeCandidate("a0006"));
  bad["files"][0] = "/etc/passwd";
  ASSERT_TRUE(queue.Enqueue("a0006", {{"kind", "evaluate"}, {"candidate", bad}}));
  ASSERT_TRUE(queue.Enqueue(
      "a0007", {{"kind", "evaluate"}, {"candidate", CandidatePayload(MakeCandidate("a0008"))}}));
  ASSERT_TRUE(queue.Enqueue(
      "a0009", {{"kind", "evaluate"}, {"candidate", CandidatePayload(MakeCandidate("a0009"))}}));
  ASSERT_TRUE(queue.Enqueue(
      "a0011", {{"kind", "profile"}, {"candidate", CandidatePayload(MakeCandidate("a0011"))}}));
  FakeEvaluator inner;
  auto summary =
      RunQueueWorker(fs_, queue_dir_, Readers(inner, fs_), WorkerOptions("w1"), clock_.Clock());
  ASSERT_TRUE(summary.ok()) << summary.error().Located();
  // A path outside the project; an id that is not the queue's; a kind no reader knows.
  EXPECT_EQ(summary->malformed, 3);
  EXPECT_EQ(summary->evaluated, 1);
  ASSERT_EQ(inner.seen.size(), 1u);
  EXPECT_EQ(inner.seen[0].id, "a0009");
  const Attempt lost = AttemptFromDoneRecord(**queue.DoneRecordOf("a0007"), MakeCandidate("a0007"));
  EXPECT_EQ(lost.verdict, AttemptVerdict::kLost);
  EXPECT_EQ(lost.first_error,
            "unreadable queue payload: the candidate's id 'a0008' is not the queue id");
  EXPECT_EQ(
      AttemptFromDoneRecord(**queue.DoneRecordOf("a0011"), MakeCandidate("a0011")).first_error,
      "unreadable queue payload: unknown kind 'profile'");
}

// The run folder is the shared folder's, read by no --resume check: an attempts/ folder that
// is a link (or an attempt's folder holding one) would take the worker's logs elsewhere.
TEST_F(QueueEvaluatorTest, TheWorkerWritesNoAttemptThroughALinkInTheRunFolder) {
  const std::filesystem::path run = "/p/results/optimize-1";
  fs_.mem.PlantSymlink(run / "attempts", "/elsewhere");
  WorkQueue queue(fs_, queue_dir_);
  ASSERT_TRUE(queue.Enqueue(
      "a0012", {{"kind", "evaluate"}, {"candidate", CandidatePayload(MakeCandidate("a0012"))}}));
  FakeEvaluator inner;
  auto summary =
      RunQueueWorker(fs_, queue_dir_, Readers(inner, fs_), WorkerOptions("w1"), clock_.Clock());
  ASSERT_TRUE(summary.ok()) << summary.error().Located();
  EXPECT_EQ(summary->malformed, 1);
  EXPECT_TRUE(inner.seen.empty());
  const Attempt lost = AttemptFromDoneRecord(**queue.DoneRecordOf("a0012"), MakeCandidate("a0012"));
  EXPECT_EQ(lost.verdict, AttemptVerdict::kLost);
  EXPECT_NE(lost.first_error.find("through the symbolic link " + (run / "attempts").string()),
            std::string::npos)
      << lost.first_error;
}

TEST(AttemptFromDoneRecord, AResultTheRunCannotReadIsLostWithTheReason) {
  const Attempt a = AttemptFromDoneRecord({{"worker", "w9"}, {"attempt", {{"id", "a0001"}}}},
                                          MakeCandidate("a0001"));
  EXPECT_EQ(a.verdict, AttemptVerdict::kLost);
  EXPECT_EQ(a.candidate.files.size(), 2u);  // ours, not the worker's
  EXPECT_EQ(a.first_error.rfind("unreadable result from worker 'w9': key '", 0), 0u)
      << a.first_error;
}

TEST_F(QueueEvaluatorTest, TheWorkerEndsAtTheStopFileAndBeatsWhileItEvaluates) {
  WorkQueue queue(fs_, queue_dir_);
  ASSERT_TRUE(queue.Enqueue(
      "a0010", {{"kind", "evaluate"}, {"candidate", CandidatePayload(MakeCandidate("a0010"))}}));
  FakeEvaluator inner;
  json beat_during = json::object();
  inner.during = [&](const Candidate&) {
    // The heartbeat thread's first beat names the attempt held.
    for (int i = 0; i < 200 && beat_during.value("holding", json()).is_null(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      beat_during = json::parse(*fs_.ReadAtMost(queue_dir_ / "workers" / "w2.json", 4096));
    }
    ASSERT_TRUE(queue.RequestStop());
  };
  auto summary =
      RunQueueWorker(fs_, queue_dir_, Readers(inner, fs_), WorkerOptions("w2"), clock_.Clock());
  ASSERT_TRUE(summary.ok()) << summary.error().Located();
  EXPECT_EQ(beat_during.value("holding", ""), "a0010");
  EXPECT_EQ(summary->evaluated, 1);
  EXPECT_EQ(summary->why_ended, "stop requested (/p/results/optimize-1/queue/stop)");
  EXPECT_TRUE(queue.DoneRecordOf("a0010")->has_value());
}

TEST_F(QueueEvaluatorTest, AWorkerNameThatCannotBeAFileNameIsRefused) {
  FakeEvaluator inner;
  auto summary =
      RunQueueWorker(fs_, queue_dir_, Readers(inner, fs_), WorkerOptions("../w"), clock_.Clock());
  ASSERT_FALSE(summary.ok());
}

}  // namespace
}  // namespace kb
