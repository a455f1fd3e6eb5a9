#include "kbuild/harness/timing.h"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>

#include "kbuild/harness/cuda_sync.h"

namespace kb::harness {

namespace {

// Replays per graph-mode measurement; each replay runs `iterations` launches.
constexpr int kGraphReplays = 20;

int CurrentDevice() {
  int device = 0;
  cudaGetDevice(&device);
  return device;
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
    float ms = 0;
    cudaEventElapsedTime(&ms, events_[start], events_[stop]);
    return static_cast<double>(ms) * 1000.0;
  }

 private:
  std::vector<cudaEvent_t> events_;
};

// Writing a buffer twice the L2 size evicts whatever the last launch left there.
class L2Flusher {
 public:
  L2Flusher() : bytes_(std::max<std::int64_t>(2 * L2CacheBytes(), 1 << 20)) {
    cudaMalloc(&buffer_, static_cast<std::size_t>(bytes_));
  }
  ~L2Flusher() { cudaFree(buffer_); }
  void Flush(cudaStream_t stream) {
    cudaMemsetAsync(buffer_, 0x5A, static_cast<std::size_t>(bytes_), stream);
  }

 private:
  std::int64_t bytes_;
  void* buffer_ = nullptr;
};

// Times `count` back-to-back launches with one event pair and the host clock
// around a device-wide synchronize.
void TimeConsistency(const Launch& launch, int count, int sets, cudaStream_t stream,
                     Timing* timing) {
  Events events(2);
  cudaDeviceSynchronize();
  auto host_start = std::chrono::steady_clock::now();
  cudaEventRecord(events[0], stream);
  for (int i = 0; i < count; ++i) launch(i % sets);
  cudaEventRecord(events[1], stream);
  cudaDeviceSynchronize();
  timing->host_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - host_start)
          .count();
  timing->event_us = events.ElapsedUs(0, 1);
}

Timing TimeEager(const Launch& launch, const TimingOptions& options, cudaStream_t stream) {
  Timing timing;
  L2Flusher flusher;
  Events events(2 * static_cast<std::size_t>(options.iterations));
  for (int i = 0; i < options.iterations; ++i) {
    flusher.Flush(stream);
    cudaEventRecord(events[2 * i], stream);
    launch(i % options.input_sets);
    cudaEventRecord(events[2 * i + 1], stream);
  }
  if ((timing.error = CudaErrorText(cudaDeviceSynchronize())).empty()) {
    for (int i = 0; i < options.iterations; ++i)
      timing.samples_us.push_back(events.ElapsedUs(2 * i, 2 * i + 1));
  }
  return timing;
}

Timing TimeGraph(const Launch& launch, const TimingOptions& options, cudaStream_t stream) {
  Timing timing;
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
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  for (int i = 0; i < options.warmup; ++i) launch(i % options.input_sets);
  if (std::string error = CudaErrorText(cudaDeviceSynchronize()); !error.empty())
    return {{}, 0, 0, error};
  Timing timing;
  try {
    timing =
        options.graph ? TimeGraph(launch, options, stream) : TimeEager(launch, options, stream);
  } catch (const std::exception& e) {
    return {{}, 0, 0, std::string("launch failed while timing: ") + e.what()};
  }
  if (timing.error.empty())
    TimeConsistency(launch, options.iterations, options.input_sets, stream, &timing);
  return timing;
}

bool WorkOutsideTimedStream(const Timing& timing) {
  return timing.host_us > kHostOverEventLimit * timing.event_us + kHostAllowanceUs;
}

}  // namespace kb::harness
