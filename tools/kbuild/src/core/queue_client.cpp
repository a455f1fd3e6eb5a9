#include "core/queue_client.h"

#include <chrono>
#include <thread>

#include "core/stop_signal.h"

namespace kb {

namespace fs = std::filesystem;

QueueClock RealQueueClock() {
  return {
      [] {
        return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
      },
      [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }};
}

QueueClient::QueueClient(FileSystem& fs, fs::path queue_dir, QueueTimings timings, QueueClock clock)
    : queue_(fs, std::move(queue_dir)), timings_(timings), clock_(std::move(clock)) {}

Status QueueClient::Submit(const std::string& id, const nlohmann::json& payload) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto done = queue_.DoneRecordOf(id);
  if (!done) return done.error();
  // A resumed run finds the item in the queue already: it waits for it, never twice.
  auto queued = queue_.IsQueued(id);
  if (!queued) return queued.error();
  if (*done || *queued) return {};
  return queue_.Enqueue(id, payload);
}

Expected<std::optional<DoneRecord>> QueueClient::WaitForAny(const std::vector<std::string>& ids) {
  for (;;) {
    if (StopSignal() != 0) return std::optional<DoneRecord>();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto reclaimed = queue_.Reclaim(clock_.now(), timings_.lease_seconds, timings_.max_retries);
      if (!reclaimed) return reclaimed.error();
      for (const std::string& id : ids) {
        auto done = queue_.DoneRecordOf(id);
        if (!done) return done.error();
        if (*done) return std::optional<DoneRecord>(DoneRecord{id, std::move(**done)});
      }
    }
    clock_.sleep(timings_.poll_seconds);
  }
}

Expected<QueueCounts> QueueClient::Counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.Counts();
}

}  // namespace kb
