#include "kbuild/harness/timing.h"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

#include "kbuild/harness/cuda_sync.h"
#include "kbuild/harness/host_ahead.h"
#include "utility_kernels.h"

namespace kb::harness {

namespace {

using Clock = std::chrono::steady_clock;

double UsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

Timing Failed(std::string error) {
  Timing timing;
  timing.error = std::move(error);
  return timing;
}

// Replays per graph-mode measurement; each replay runs `iterations` launches.
constexpr int kGraphReplays = 20;

int CurrentDevice() {
  int device = 0;
  cudaGetDevice(&device);
  return device;
}

double ElapsedUs(cudaEvent_t start, cudaEvent_t stop) {
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  return static_cast<double>(ms) * 1000.0;
}

// Owns CUDA events so every return path frees them.
class Events {
 public:
  explicit Events(std::size_t count) : events_(count) {
    for (cudaEvent_t& e : events_) cudaEventCreate(&e);
  }
  ~Events() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  cudaEvent_t operator[](std::size_t i) const { return events_[i]; }
  double ElapsedUs(std::size_t start, std::size_t stop) const {
    return kb::harness::ElapsedUs(events_[start], events_[stop]);
  }

 private:
  std::vector<cudaEvent_t> events_;
};

// Evicts whatever the last launch left in L2, in two untimed steps over a
// buffer twice the L2 size: a write (it evicts everything), then a read.
// The read matters: after the write alone L2 is full of dirty lines, and the
// timed kernel paid for writing them back (measured on an H200: a 33 MB copy
// took 13.95 us after the write, 12.19 us after write + read; results/
// h200-2026-12-02/run-0008, tools/peer_bench/l2_flush_probe.cu).
class L2Flusher {
 public:
  L2Flusher() : bytes_(std::max<std::int64_t>(2 * L2CacheBytes(), 1 << 20)) {
    cudaMalloc(&buffer_, static_cast<std::size_t>(bytes_));
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, CurrentDevice());
    blocks_ = std::max(1, 8 * sms);
  }
  ~L2Flusher() { cudaFree(buffer_); }
  // Enqueues the flush; the first error it met stays in error().
  void Flush(cudaStream_t stream) {
    cudaMemsetAsync(buffer_, 0x5A, static_cast<std::size_t>(bytes_), stream);
    std::string error;
    if (LaunchReadKernel(buffer_, bytes_, blocks_, stream, &error) != cudaSuccess &&
        error_.empty()) {
      error_ = "flushing L2: " + error;
    }
  }
  const std::string& error() const { return error_; }

 private:
  std::int64_t bytes_;
  void* buffer_ = nullptr;
  int blocks_ = 1;
  std::string error_;
};

// Times `count` back-to-back launches with one event pair and the host clock
// around a device-wide synchronize.
void TimeConsistency(const Launch& launch, int count, int sets, cudaStream_t stream,
                     Timing* timing) {
  Events events(2);
  cudaDeviceSynchronize();
  const Clock::time_point host_start = Clock::now();
  cudaEventRecord(events[0], stream);
  for (int i = 0; i < count; ++i) launch(i % sets);
  cudaEventRecord(events[1], stream);
  cudaDeviceSynchronize();
  timing->host_us = UsSince(host_start);
  timing->event_us = events.ElapsedUs(0, 1);
}

// Enqueues calls [first, first + count) of `enqueue` behind a GPU spin of
// `spin_us`, measuring the host time of the enqueue loop, then synchronizes.
struct Enqueued {
  double host_us = 0;
  std::string error;
};

Enqueued BehindSpin(double spin_us, int first, int count, const std::function<void(int)>& enqueue,
                    cudaStream_t stream) {
  Enqueued result;
  LaunchSpinKernel(stream, static_cast<std::uint64_t>(spin_us * 1000), &result.error);
  if (result.error.empty()) {
    const Clock::time_point start = Clock::now();
    for (int i = first; i < first + count; ++i) enqueue(i);
    result.host_us = UsSince(start);
  }
  const std::string sync_error = CudaErrorText(cudaDeviceSynchronize());
  if (result.error.empty()) result.error = sync_error;
  return result;
}

// Host time per call of `enqueue`, from the pilot's kIterationsPerSpin calls
// (fewer when there are fewer iterations) behind a spin.
double PilotUsPerCall(const std::function<void(int)>& enqueue, const TimingOptions& options,
                      cudaStream_t stream, std::string* error) {
  const int calls = std::min(options.iterations, kIterationsPerSpin);
  const Enqueued pilot = BehindSpin(PilotSpinUs(calls), 0, calls, enqueue, stream);
  *error = pilot.error;
  return pilot.host_us / calls;
}

// Bare launches, as an eager caller makes them.
std::function<void(int)> BareCalls(const Launch& launch, const TimingOptions& options) {
  return [&launch, sets = options.input_sets](int i) { launch(i % sets); };
}

// The pilot (timed iterations, then bare calls), then the timed iterations in
// chunks, each behind a spin of LeadUs(). Every call is then checked against
// the GPU's clock: its launches must have been enqueued before the GPU reached
// its start event, so no dispatch cost lands between a launch's events.
Timing TimeEager(const Launch& launch, const TimingOptions& options, cudaStream_t stream) {
  Timing timing;
  const int n = options.iterations;
  L2Flusher flusher;
  Events events(2 * static_cast<std::size_t>(n));
  Events spin_began(1);
  Clock::time_point chunk_origin = Clock::now();
  std::vector<double> call_enqueued_us(static_cast<std::size_t>(n));
  const std::function<void(int)> timed_iteration = [&](int i) {
    flusher.Flush(stream);
    cudaEventRecord(events[2 * i], stream);
    launch(i % options.input_sets);
    call_enqueued_us[i] = UsSince(chunk_origin);
    cudaEventRecord(events[2 * i + 1], stream);
  };
  const double us_per_iteration = PilotUsPerCall(timed_iteration, options, stream, &timing.error);
  if (timing.error.empty()) timing.error = flusher.error();
  if (!timing.error.empty()) return timing;
  timing.host_us_per_call =
      PilotUsPerCall(BareCalls(launch, options), options, stream, &timing.error);
  if (!timing.error.empty()) return timing;
  for (int first = 0; first < n; first += kIterationsPerSpin) {
    const int count = std::min(kIterationsPerSpin, n - first);
    for (int attempt = 0; attempt < kChunkAttempts; ++attempt) {
      const double lead_us = RetryLeadUs(LeadUs(count, us_per_iteration), attempt);
      // The host's origin precedes the GPU's (the event is enqueued after it), so a
      // late call can only look later than it was.
      chunk_origin = Clock::now();
      cudaEventRecord(spin_began[0], stream);
      const Enqueued chunk = BehindSpin(lead_us, first, count, timed_iteration, stream);
      if (!(timing.error = chunk.error).empty()) return timing;
      std::vector<double> enqueued, reached;
      for (int i = first; i < first + count; ++i) {
        enqueued.push_back(call_enqueued_us[i]);
        reached.push_back(ElapsedUs(spin_began[0], events[2 * i]));
      }
      timing.error = HostFellBehindProblem(enqueued, reached, lead_us);
      if (timing.error.empty()) break;  // this attempt's samples stand
    }
    if (!timing.error.empty()) return timing;
  }
  for (int i = 0; i < n; ++i) timing.samples_us.push_back(events.ElapsedUs(2 * i, 2 * i + 1));
  return timing;
}

// The host cost per call (measured eagerly, as callers outside a graph pay
// it), then replays of one graph of `iterations` launches.
Timing TimeGraph(const Launch& launch, const TimingOptions& options, cudaStream_t stream) {
  Timing timing;
  timing.host_us_per_call =
      PilotUsPerCall(BareCalls(launch, options), options, stream, &timing.error);
  if (!timing.error.empty()) return timing;
  at::cuda::CUDAGraph graph;
  {
    // Capture must not happen on the legacy default stream.
    c10::cuda::CUDAStreamGuard capture_stream(c10::cuda::getStreamFromPool());
    graph.capture_begin();
    for (int i = 0; i < options.iterations; ++i) launch(i % options.input_sets);
    graph.capture_end();
  }
  Events events(2 * kGraphReplays);
  graph.replay();  // first replay uploads the graph
  for (int r = 0; r < kGraphReplays; ++r) {
    cudaEventRecord(events[2 * r], stream);
    graph.replay();
    cudaEventRecord(events[2 * r + 1], stream);
  }
  if ((timing.error = CudaErrorText(cudaDeviceSynchronize())).empty()) {
    for (int r = 0; r < kGraphReplays; ++r) {
      timing.samples_us.push_back(events.ElapsedUs(2 * r, 2 * r + 1) / options.iterations);
    }
  }
  return timing;
}

}  // namespace

std::int64_t L2CacheBytes() {
  int bytes = 0;
  cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, CurrentDevice());
  return bytes;
}

std::string DeviceName() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, CurrentDevice()) != cudaSuccess) return "unknown";
  return prop.name;
}

Timing TimeLaunches(const Launch& launch, const TimingOptions& options) {
  if (options.iterations < 1 || options.input_sets < 1) {
    return Failed("iterations and input sets must be at least 1 (got " +
                  std::to_string(options.iterations) + " and " +
                  std::to_string(options.input_sets) +
                  ")\nhint: set BenchSpec::iterations to a positive count");
  }
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  Events warmup_events(2);
  cudaEventRecord(warmup_events[0], stream);
  for (int i = 0; i < options.warmup; ++i) launch(i % options.input_sets);
  cudaEventRecord(warmup_events[1], stream);
  if (std::string error = CudaErrorText(cudaDeviceSynchronize()); !error.empty())
    return Failed(error);
  TimingOptions timed = options;
  if (options.cap_long_calls && !options.graph && options.warmup > 0) {
    timed.iterations = IterationsWithinBudget(
        options.iterations, warmup_events.ElapsedUs(0, 1) / options.warmup);
  }
  Timing timing;
  try {
    timing = timed.graph ? TimeGraph(launch, timed, stream) : TimeEager(launch, timed, stream);
  } catch (const std::exception& e) {
    return Failed(std::string("launch failed while timing: ") + e.what());
  }
  if (timing.error.empty())
    TimeConsistency(launch, timed.iterations, timed.input_sets, stream, &timing);
  return timing;
}

bool WorkOutsideTimedStream(const Timing& timing) {
  return timing.host_us > kHostOverEventLimit * timing.event_us + kHostAllowanceUs;
}

}  // namespace kb::harness
