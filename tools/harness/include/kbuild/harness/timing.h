// GPU timing primitives: CUDA events on the current stream, L2 flushing,
// CUDA-graph replay, and the host-clock consistency check that catches work
// done outside the timed stream.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kb::harness {

// Enqueues one call of the op (or a baseline) using input set `set`.
using Launch = std::function<void(int set)>;

struct TimingOptions {
  int warmup = 10;
  int iterations = 100;
  int input_sets = 1;  // launches rotate over the sets
  bool graph = false;  // capture `iterations` launches in a CUDA graph, time replays
};

struct Timing {
  std::vector<double> samples_us;  // per launch
  // Consistency run: back-to-back launches timed by one event pair and by
  // the host clock around a device-wide synchronize.
  double host_us = 0;
  double event_us = 0;
  std::string error;  // CUDA error or capture failure; samples empty then
};

// Host time above this multiple of the event time (plus a fixed allowance
// for synchronization latency) means the GPU did work the events did not see.
inline constexpr double kHostOverEventLimit = 1.5;
inline constexpr double kHostAllowanceUs = 200;

// Eager mode: warm-up, then per launch: flush L2 (not timed), event, launch,
// event. Graph mode: no flush; launches rotate over the input sets, which
// the caller sizes beyond 2x L2.
// True when the host clock saw much more GPU time than the events: the op
// works on a stream the events are not recorded on.
bool WorkOutsideTimedStream(const Timing& timing);

Timing TimeLaunches(const Launch& launch, const TimingOptions& options);

// L2 size of the current device, from cudaDevAttrL2CacheSize.
std::int64_t L2CacheBytes();
std::string DeviceName();

// Device-to-device cudaMemcpy bandwidth (read + write counted), median of
// 20 copies of 1 GiB: the 100% line when kbuild passed no measurement.
double MeasureCopyBandwidthGbps();

}  // namespace kb::harness
