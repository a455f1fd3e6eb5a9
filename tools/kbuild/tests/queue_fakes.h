// A fake clock for the work queue's run and worker sides (queue_client.h, queue_worker.h):
// seconds pass only when someone sleeps, and a test's other actor (a worker that claims and
// dies, one that finishes an item) acts at each sleep.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "core/queue_client.h"

namespace kb::queue_fakes {

struct FakeClock {
  std::atomic<double> seconds{1000};
  std::function<void()> on_sleep;  // runs before the time moves on
  QueueClock Clock() {
    return {[this] { return seconds.load(); },
            [this](double s) {
              if (on_sleep) on_sleep();
              seconds = seconds.load() + s;
              std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }};
  }
};

}  // namespace kb::queue_fakes
