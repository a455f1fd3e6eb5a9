// The work queue on MemoryFileSystem with a fake clock: claims by rename, results counted once,
// leases and bounded retries, and the hostile files a shared folder may hold.
#include "core/work_queue.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace kb {
namespace {

using nlohmann::json;

class WorkQueueTest : public ::testing::Test {
 protected:
  std::optional<ClaimedWork> ClaimAs(WorkQueue& queue, const std::string& worker) {
    auto claimed = queue.Claim(worker);
    EXPECT_TRUE(claimed.ok()) << claimed.error().Located();
    return claimed.ok() ? *claimed : std::nullopt;
  }
  QueueCounts CountsOf(WorkQueue& queue) {
    auto counts = queue.Counts();
    EXPECT_TRUE(counts.ok()) << counts.error().Located();
    return counts.ok() ? *counts : QueueCounts{};
  }
  json ReadJson(const std::string& path) { return json::parse(*mem_.Read(path)); }

  MemoryFileSystem mem_;
  WorkQueue queue_{mem_, "run/queue"};
};

TEST_F(WorkQueueTest, EnqueueClaimComplete) {
  ASSERT_TRUE(queue_.Enqueue("c1", {{"define", "TILE=64"}}));
  EXPECT_TRUE(mem_.Exists("run/queue/pending/c1.json"));

  auto work = ClaimAs(queue_, "w0");
  ASSERT_TRUE(work);
  EXPECT_EQ(work->id, "c1");
  EXPECT_EQ(work->payload, json({{"define", "TILE=64"}}));
  EXPECT_EQ(work->retries, 0);
  EXPECT_FALSE(mem_.Exists("run/queue/pending/c1.json"));
  EXPECT_TRUE(mem_.Exists("run/queue/claimed/c1.w0.json"));

  auto outcome = queue_.Complete("w0", "c1", {{"verdict", "ok"}, {"us", 12.5}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().Located();
  EXPECT_EQ(*outcome, CompleteOutcome::kRecorded);
  EXPECT_FALSE(mem_.Exists("run/queue/claimed/c1.w0.json"));
  EXPECT_EQ(ReadJson("run/queue/done/c1.json"),
            json({{"verdict", "ok"}, {"us", 12.5}, {"id", "c1"}, {"worker", "w0"}}));
  EXPECT_FALSE(ClaimAs(queue_, "w0"));  // empty
  EXPECT_TRUE(queue_.skipped().empty());
}

TEST_F(WorkQueueTest, TwoWorkersNeverClaimTheSameId) {
  ASSERT_TRUE(queue_.Enqueue("a", json::object()));
  ASSERT_TRUE(queue_.Enqueue("b", json::object()));
  WorkQueue other(mem_, "run/queue");
  auto first = ClaimAs(queue_, "w0");
  auto second = ClaimAs(other, "w1");
  ASSERT_TRUE(first && second);
  EXPECT_NE(first->id, second->id);
  EXPECT_FALSE(ClaimAs(queue_, "w0"));
  EXPECT_FALSE(ClaimAs(other, "w1"));
}

TEST_F(WorkQueueTest, ClaimsInSortedIdOrder) {
  for (const char* id : {"c3", "c1", "c2"}) ASSERT_TRUE(queue_.Enqueue(id, json::object()));
  std::vector<std::string> order;
  while (auto work = ClaimAs(queue_, "w0")) order.push_back(work->id);
  EXPECT_EQ(order, (std::vector<std::string>{"c1", "c2", "c3"}));
}

TEST_F(WorkQueueTest, EnqueueRefusesAnIdAlreadyPending) {
  ASSERT_TRUE(queue_.Enqueue("c1", json::object()));
  Status again = queue_.Enqueue("c1", json::object());
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message, "queue id 'c1' is already pending");
}

TEST_F(WorkQueueTest, LateDuplicateResultIsCountedOnce) {
  ASSERT_TRUE(queue_.Enqueue("c1", json::object()));
  ASSERT_TRUE(ClaimAs(queue_, "slow"));
  ASSERT_TRUE(queue_.Reclaim(/*now=*/100, /*lease_seconds=*/30, /*max_retries=*/2).ok());
  ASSERT_TRUE(ClaimAs(queue_, "fast"));
  ASSERT_EQ(*queue_.Complete("fast", "c1", {{"us", 1.0}}), CompleteOutcome::kRecorded);

  auto late = queue_.Complete("slow", "c1", {{"us", 9.0}});
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(*late, CompleteOutcome::kDuplicateDropped);
  EXPECT_EQ(ReadJson("run/queue/done/c1.json")["worker"], "fast");
  const QueueCounts counts = CountsOf(queue_);
  EXPECT_EQ(counts.done, 1u);
  EXPECT_EQ(counts.claimed, 0u);
  EXPECT_EQ(counts.pending, 0u);
}

TEST_F(WorkQueueTest, ReclaimAfterLeaseRaisesRetries) {
  ASSERT_TRUE(queue_.Enqueue("c1", {{"n", 1}}));
  ASSERT_TRUE(ClaimAs(queue_, "w0"));
  ASSERT_TRUE(queue_.Heartbeat("w0", "c1", /*now=*/10));

  auto early = queue_.Reclaim(/*now=*/35, 30, 2);
  ASSERT_TRUE(early.ok());
  EXPECT_TRUE(early->requeued.empty());

  auto late = queue_.Reclaim(/*now=*/41, 30, 2);
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->requeued, (std::vector<std::string>{"c1"}));
  EXPECT_FALSE(mem_.Exists("run/queue/claimed/c1.w0.json"));
  auto again = ClaimAs(queue_, "w1");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->retries, 1);
  EXPECT_EQ(again->payload, json({{"n", 1}}));
}

TEST_F(WorkQueueTest, LostAfterMaxRetriesWithTheReason) {
  ASSERT_TRUE(queue_.Enqueue("c1", json::object()));
  for (int attempt = 0; attempt < 2; ++attempt) {
    ASSERT_TRUE(ClaimAs(queue_, "w0"));
    ASSERT_EQ(queue_.Reclaim(/*now=*/100, 30, 2)->requeued.size(), 1u);  // no heartbeat at all
  }
  ASSERT_TRUE(ClaimAs(queue_, "w0"));
  ASSERT_TRUE(queue_.Heartbeat("w0", "c1", /*now=*/100));
  auto report = queue_.Reclaim(/*now=*/195.5, 30, 2);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->lost, (std::vector<std::string>{"c1"}));
  const json lost = ReadJson("run/queue/done/c1.json");
  EXPECT_EQ(lost["verdict"], "lost");
  EXPECT_EQ(lost["reason"], "worker w0 silent for 95 s after 2 retries");
  EXPECT_FALSE(ClaimAs(queue_, "w1"));
  auto done = queue_.Done();
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->size(), 1u);
  EXPECT_EQ((*done)[0].id, "c1");
}

TEST_F(WorkQueueTest, MissingHeartbeatIsNamedInTheReason) {
  ASSERT_TRUE(queue_.Enqueue("c1", json::object(), /*retries=*/2));
  ASSERT_TRUE(ClaimAs(queue_, "w0"));
  ASSERT_EQ(queue_.Reclaim(/*now=*/5, 30, 2)->lost.size(), 1u);
  EXPECT_EQ(ReadJson("run/queue/done/c1.json")["reason"],
            "worker w0 sent no heartbeat after 2 retries");
}

TEST_F(WorkQueueTest, FreshHeartbeatKeepsTheClaim) {
  ASSERT_TRUE(queue_.Enqueue("c1", json::object()));
  ASSERT_TRUE(ClaimAs(queue_, "w0"));
  for (double now : {0.0, 25.0, 50.0, 75.0}) {
    ASSERT_TRUE(queue_.Heartbeat("w0", "c1", now));
    auto report = queue_.Reclaim(now + 20, 30, 2);
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->requeued.empty() && report->lost.empty());
  }
  EXPECT_TRUE(mem_.Exists("run/queue/claimed/c1.w0.json"));
  EXPECT_EQ(ReadJson("run/queue/workers/w0.json"),
            json({{"worker", "w0"}, {"holding", "c1"}, {"time", 75.0}}));
}

TEST_F(WorkQueueTest, UnsafeIdsAndWorkersAreRefused) {
  for (const char* bad : {"../x", "a/b", "", ".hidden", "a.b", "-flag", "a b"}) {
    Status enqueued = queue_.Enqueue(bad, json::object());
    ASSERT_FALSE(enqueued) << bad;
    EXPECT_EQ(enqueued.error().message, std::string("unsafe queue id '") + bad + "'");
    EXPECT_NE(enqueued.error().hint.find("letters, digits"), std::string::npos);
  }
  EXPECT_FALSE(queue_.Claim("w/0").ok());
  EXPECT_FALSE(queue_.Complete("w0", "../done", json::object()).ok());
  EXPECT_FALSE(queue_.Heartbeat("w0", std::string("x.y"), 0));
  EXPECT_TRUE(mem_.files().empty());
}

TEST_F(WorkQueueTest, SymlinkPlantedInPendingIsRefused) {
  mem_.Write("secret.json", R"({"id":"a","payload":{}})");
  mem_.PlantSymlink("run/queue/pending/a.json", "../../../secret.json");
  ASSERT_TRUE(queue_.Enqueue("b", json::object()));
  auto work = ClaimAs(queue_, "w0");
  ASSERT_TRUE(work);
  EXPECT_EQ(work->id, "b");
  EXPECT_EQ(mem_.KindOf("run/queue/pending/a.json"), FileKind::kSymlink);  // left where it was
  ASSERT_EQ(queue_.skipped().size(), 1u);
  EXPECT_EQ(queue_.skipped()[0].path, "run/queue/pending/a.json");
  EXPECT_NE(queue_.skipped()[0].message.find("symbolic link"), std::string::npos);
}

TEST_F(WorkQueueTest, SymlinkedQueueFolderIsRefused) {
  mem_.PlantSymlink("run/queue/done", "/tmp/elsewhere");
  Status enqueued = queue_.Enqueue("c1", json::object());
  ASSERT_FALSE(enqueued);
  EXPECT_EQ(enqueued.error().path, "run/queue/done");
}

TEST_F(WorkQueueTest, MalformedJsonIsSkippedWithItsPath) {
  mem_.Write("run/queue/pending/a.json", "{not json");
  mem_.Write("run/queue/done/z.json", "[1, 2]");
  ASSERT_TRUE(queue_.Enqueue("b", json::object()));
  auto work = ClaimAs(queue_, "w0");
  ASSERT_TRUE(work);
  EXPECT_EQ(work->id, "b");
  auto done = queue_.Done();
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->empty());
  ASSERT_EQ(queue_.skipped().size(), 2u);
  EXPECT_EQ(queue_.skipped()[0].path, "run/queue/pending/a.json");
  EXPECT_EQ(queue_.skipped()[0].message, "skipped queue file: malformed JSON");
  EXPECT_EQ(queue_.skipped()[1].path, "run/queue/done/z.json");
  EXPECT_EQ(queue_.skipped()[1].message, "skipped queue file: not a JSON object");
}

TEST_F(WorkQueueTest, CountsPendingClaimedDone) {
  for (const char* id : {"a", "b", "c", "d"}) ASSERT_TRUE(queue_.Enqueue(id, json::object()));
  ASSERT_TRUE(ClaimAs(queue_, "w0"));
  ASSERT_TRUE(ClaimAs(queue_, "w1"));
  ASSERT_TRUE(queue_.Complete("w0", "a", json::object()).ok());
  const QueueCounts counts = CountsOf(queue_);
  EXPECT_EQ(counts.pending, 2u);
  EXPECT_EQ(counts.claimed, 1u);
  EXPECT_EQ(counts.done, 1u);
}

// The same round trip on the real disk: renames into folders the queue created itself.
TEST(WorkQueueOnDiskTest, EnqueueClaimCompleteReclaim) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kbuild-work-queue-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  RealFileSystem disk;
  WorkQueue queue(disk, dir / "queue");
  ASSERT_TRUE(queue.Enqueue("a", {{"n", 1}}));
  ASSERT_TRUE(queue.Enqueue("b", {{"n", 2}}));
  auto a = queue.Claim("w0");
  ASSERT_TRUE(a.ok() && *a) << (a.ok() ? "" : a.error().Located());
  EXPECT_EQ((*a)->id, "a");
  auto recorded = queue.Complete("w0", "a", {{"us", 3.0}});
  ASSERT_TRUE(recorded.ok()) << recorded.error().Located();
  EXPECT_EQ(*recorded, CompleteOutcome::kRecorded);
  ASSERT_TRUE(queue.Claim("w1").ok());
  auto reclaimed = queue.Reclaim(/*now=*/100, 30, 2);
  ASSERT_TRUE(reclaimed.ok()) << reclaimed.error().Located();
  EXPECT_EQ(reclaimed->requeued, (std::vector<std::string>{"b"}));
  auto counts = queue.Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->pending, 1u);
  EXPECT_EQ(counts->claimed, 0u);
  EXPECT_EQ(counts->done, 1u);
  EXPECT_TRUE(queue.skipped().empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kb
