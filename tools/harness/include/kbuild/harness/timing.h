// GPU timing primitives: CUDA events on the current stream, L2 flushing, the
// host kept ahead of the GPU (host_ahead.h), CUDA-graph replay, the host time
// per call, and the host-clock consistency check that catches work done
// outside the timed stream.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kbuild/harness/physics.h"

namespace kb::harness {

// Enqueues one call of the op (or a baseline) using input set `set`.
using Launch = std::function<void(int set)>;

struct TimingOptions {
  int warmup = 10;
  int iterations = 100;
  int input_sets = 1;  // launches rotate over the sets
  bool graph = false;  // capture `iterations` launches in a CUDA graph, time replays
  // Eager mode: time fewer than `iterations` calls when the warm-up shows them
  // long (IterationsWithinBudget, host_ahead.h); the consistency run takes as many.
  bool cap_long_calls = false;
};

struct Timing {
  std::vector<double> samples_us;  // per launch
  // Host time to enqueue one bare launch (what eager callers pay per call),
  // measured behind a GPU spin in both modes; 0 when not measured.
  double host_us_per_call = 0;
  // Consistency run: back-to-back launches timed by one event pair and by
  // the host clock around a device-wide synchronize.
  double host_us = 0;
  double event_us = 0;
  // A CUDA error, a capture failure or the host falling behind the GPU
  // (HostFellBehindProblem); samples empty then.
  std::string error;
};

// Host time above this multiple of the event time (plus a fixed allowance
// for synchronization latency) means the GPU did work the events did not see.
inline constexpr double kHostOverEventLimit = 1.5;
inline constexpr double kHostAllowanceUs = 200;

// True when the host clock saw much more GPU time than the events: the op
// works on a stream the events are not recorded on.
bool WorkOutsideTimedStream(const Timing& timing);

// Warm-up, then the host cost measured behind a GPU spin (the pilot). Eager
// mode: per launch, flush L2 (not timed), event, launch, event, in chunks of
// kIterationsPerSpin, each enqueued behind a spin of LeadUs() before it ends
// (else Timing::error says the host fell behind). Graph mode: no flush;
// launches rotate over the input sets, which the caller sizes beyond 2x L2.
// Then the consistency run. With cap_long_calls the warm-up is timed by an
// event pair and long calls are timed fewer times (samples_us.size() says how many).
Timing TimeLaunches(const Launch& launch, const TimingOptions& options);

// L2 size of the current device, from cudaDevAttrL2CacheSize.
std::int64_t L2CacheBytes();
std::string DeviceName();

// Device-to-device cudaMemcpy bandwidth (read + write counted), median of
// 20 copies of 1 GiB: the 100% line when kbuild passed no measurement.
double MeasureCopyBandwidthGbps();

// The current device's compute capability, SM count and boost clock, for
// TheoreticalPeakTflops (physics.h); zeros when the query fails.
GpuClockFacts CurrentGpuClockFacts();

}  // namespace kb::harness
