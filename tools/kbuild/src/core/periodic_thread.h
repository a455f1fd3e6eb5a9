// Runs a function every few seconds on its own thread until destroyed (a worker's heartbeat
// during a long evaluation, a run's progress lines); destruction wakes it and joins.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace kb {

class PeriodicThread {
 public:
  enum class First { kAtStart, kAfterOnePeriod };
  PeriodicThread(double seconds, First first, std::function<void()> tick)
      : thread_([this, seconds, first, tick = std::move(tick)] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (first == First::kAtStart) tick();
          while (!wake_.wait_for(lock, std::chrono::duration<double>(seconds),
                                 [this] { return done_; })) {
            tick();
          }
        }) {}
  ~PeriodicThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;  // last: it starts once the members it uses exist
};

}  // namespace kb
