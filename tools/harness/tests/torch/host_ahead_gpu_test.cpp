// The host kept ahead of the GPU (host_ahead.h, timing.cpp) on a real GPU:
// the spin kernel spins as long as asked, a call's host dispatch cost is not
// timed but reported as host time per call, and the fell-behind check fires
// when the host slows down after the pilot. Skips without a CUDA device.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "../../src/utility_kernels.h"
#include "kbuild/harness/benchmark.h"
#include "kbuild/harness/host_ahead.h"
#include "kbuild/harness/timing.h"

namespace kb::harness {
namespace {

// Refused before any CUDA call, so it runs without a GPU: a spec with no timed
// launch would divide the host time by zero.
TEST(TimeLaunches, ZeroIterationsIsAnErrorNotANaN) {
  int calls = 0;
  const Timing t = TimeLaunches([&](int) { ++calls; }, {.warmup = 1, .iterations = 0});
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(t.samples_us.empty());
  EXPECT_TRUE(t.error.starts_with("iterations and input sets must be at least 1 (got 0 and 1)"))
      << t.error;
}

// The tiny kernel the timed launches run, and the host cost put around it.
constexpr std::uint64_t kKernelNs = 5'000;
constexpr double kHostSleepUs = 200;
// A sample this far above the kernel's time contains host time (the sleep).
constexpr double kMaxSampleUs = 30;

class HostAheadOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (c10::cuda::device_count() == 0)
      GTEST_SKIP() << "no CUDA device: the spin kernel and event timing need a GPU";
  }
};

cudaStream_t CurrentStream() { return c10::cuda::getCurrentCUDAStream().stream(); }

// Busy-waits rather than sleeps: sleep_for overshoots by tens of microseconds.
void HostBusyWaitUs(double us) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double, std::micro>(us));
  while (std::chrono::steady_clock::now() < until) {
  }
}

void LaunchTinyKernel() {
  std::string error;
  ASSERT_EQ(LaunchSpinKernel(CurrentStream(), kKernelNs, &error), cudaSuccess) << error;
}

double SpinEventUs(std::uint64_t nanoseconds) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::string error;
  cudaEventRecord(start, CurrentStream());
  EXPECT_EQ(LaunchSpinKernel(CurrentStream(), nanoseconds, &error), cudaSuccess) << error;
  cudaEventRecord(stop, CurrentStream());
  EXPECT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1000.0;
}

TEST_F(HostAheadOnGpu, SpinKernelSpinsAboutAsLongAsAsked) {
  SpinEventUs(1000);  // loads and JIT-compiles the PTX outside the measurement
  for (double asked_us : {20.0, 200.0, 2'000.0, 20'000.0}) {
    const double got_us = SpinEventUs(static_cast<std::uint64_t>(asked_us * 1000));
    EXPECT_GE(got_us, asked_us * 0.99) << "asked " << asked_us << " us";
    EXPECT_LE(got_us, asked_us * 1.05 + 15) << "asked " << asked_us << " us";
  }
}

TEST_F(HostAheadOnGpu, HostDispatchCostIsNotTimedButReported) {
  const Launch slow_host = [](int) {
    HostBusyWaitUs(kHostSleepUs);
    LaunchTinyKernel();
  };
  for (bool graph : {false, true}) {
    const Timing t = TimeLaunches(slow_host, {.warmup = 3, .iterations = 50, .graph = graph});
    ASSERT_EQ(t.error, "") << (graph ? "graph" : "eager");
    const double median = Summarize(t.samples_us).median;
    EXPECT_GE(median, kKernelNs / 1000.0) << (graph ? "graph" : "eager");
    EXPECT_LT(median, kMaxSampleUs) << "the host's " << kHostSleepUs << " us per call were timed ("
                                    << (graph ? "graph" : "eager") << ")";
    EXPECT_GE(t.host_us_per_call, kHostSleepUs) << (graph ? "graph" : "eager");
    EXPECT_FALSE(WorkOutsideTimedStream(t))
        << t.host_us << " host us, " << t.event_us << " event us";
  }
}

TEST_F(HostAheadOnGpu, LongCallsAreTimedFewerTimesOnlyWhenAskedTo) {
  // 60 ms calls: 100 would take 6 s, the budget of 1 s fits 16, so 20 (the floor).
  constexpr std::uint64_t kLongNs = 60'000'000;
  int calls = 0;
  const Launch long_call = [&](int) {
    ++calls;
    std::string error;
    ASSERT_EQ(LaunchSpinKernel(CurrentStream(), kLongNs, &error), cudaSuccess) << error;
  };
  const Timing capped =
      TimeLaunches(long_call, {.warmup = 2, .iterations = 100, .cap_long_calls = true});
  ASSERT_EQ(capped.error, "");
  EXPECT_EQ(capped.samples_us.size(), static_cast<std::size_t>(kMinCappedIterations));
  EXPECT_GE(Summarize(capped.samples_us).median, kLongNs / 1000.0);
  // Warm-up, the pilot's timed and bare calls, the timed loop, the consistency run.
  EXPECT_EQ(calls, 2 + 2 * kMinCappedIterations + 2 * kMinCappedIterations);
  const Timing exact = TimeLaunches(long_call, {.warmup = 1, .iterations = 25});
  ASSERT_EQ(exact.error, "");
  EXPECT_EQ(exact.samples_us.size(), 25u) << "without cap_long_calls the count is exact";
}

TEST_F(HostAheadOnGpu, HostSlowingDownAfterThePilotIsRefused) {
  constexpr TimingOptions kOptions{.warmup = 3, .iterations = 50};
  // Warm-up and the pilot (one chunk of timed iterations, one of bare calls)
  // run at full speed; from the timed loop on, each call costs the host
  // 2 ms more. Not 200 us: the L2 flush (a write and a read of 2 x L2) keeps
  // the GPU busy ~100 us per iteration, so a host 200 us slower per call
  // stays ahead behind the third attempt's 4x lead, and its samples are
  // rightly kept (H200, 2026-12-02).
  constexpr double kSlowerHostUs = 2000;
  constexpr int kFastCalls = kOptions.warmup + 2 * kIterationsPerSpin;
  int calls = 0;
  const Launch slows_down = [&](int) {
    if (++calls > kFastCalls) HostBusyWaitUs(kSlowerHostUs);
    LaunchTinyKernel();
  };
  const Timing t = TimeLaunches(slows_down, kOptions);
  EXPECT_EQ(calls, kFastCalls + kChunkAttempts * kIterationsPerSpin)
      << "warm-up, pilot, each attempt at the first chunk: the order this test assumes";
  EXPECT_TRUE(t.error.starts_with("the host fell behind the GPU: timed call "))
      << t.error;
  EXPECT_TRUE(t.samples_us.empty()) << "a number that includes host time is not published";
  EXPECT_GT(t.host_us_per_call, 0);
  EXPECT_LT(t.host_us_per_call, kHostSleepUs) << "the pilot's calls were fast";
}

TEST_F(HostAheadOnGpu, OneStallOfTheHostRetimesItsChunkInsteadOfRefusing) {
  constexpr TimingOptions kOptions{.warmup = 3, .iterations = 50};
  constexpr int kFastCalls = kOptions.warmup + 2 * kIterationsPerSpin;
  int calls = 0;
  const Launch stalls_once = [&](int) {
    if (++calls == kFastCalls + 5) HostBusyWaitUs(3000);  // the timed loop's fifth call
    LaunchTinyKernel();
  };
  const Timing t = TimeLaunches(stalls_once, kOptions);
  ASSERT_EQ(t.error, "");
  // Then the consistency check's back-to-back calls (TimeConsistency).
  EXPECT_EQ(calls, kFastCalls + kIterationsPerSpin + 2 * kOptions.iterations)
      << "the first chunk ran twice, the rest once";
  EXPECT_EQ(t.samples_us.size(), 50u);
  EXPECT_LT(Summarize(t.samples_us).median, kMaxSampleUs);
}

TEST_F(HostAheadOnGpu, MoreOperationsThanAStreamHoldsStayAhead) {
  // Past 1021 pending operations the host waits for the GPU to drain the
  // queue: it must not count as falling behind. Many iterations of one
  // launch, and an eager composite's worth of launches per call.
  const Launch tiny = [](int) { LaunchTinyKernel(); };
  const Timing many_iterations = TimeLaunches(tiny, {.warmup = 3, .iterations = 2000});
  ASSERT_EQ(many_iterations.error, "");
  EXPECT_LT(Summarize(many_iterations.samples_us).median, kMaxSampleUs);
  const Launch composite = [](int) {
    for (int k = 0; k < kMaxOperationsPerCall; ++k) LaunchTinyKernel();
  };
  const Timing many_launches = TimeLaunches(composite, {.warmup = 3, .iterations = 100});
  ASSERT_EQ(many_launches.error, "");
  EXPECT_LT(Summarize(many_launches.samples_us).median, kMaxOperationsPerCall * kMaxSampleUs);
}

TEST_F(HostAheadOnGpu, BenchRecordCarriesHostTimeAndTolerance) {
  BenchSpec spec;
  spec.op = "aten::neg";
  spec.cases = MakeCases({{4096, 4096}}, {at::kBFloat16});
  spec.make_args = [](ArgFactory& f) { return Args{f.Input(f.test_case().shape)}; };
  spec.bytes = [](const Case& c) { return 2.0 * c.shape[0] * c.shape[1] * 2; };
  spec.reference = [](const Args& a) { return std::vector<at::Tensor>{-a[0].toTensor()}; };
  spec.baselines = {
      {"at::neg", [](const Args& a) { return std::vector<at::Tensor>{at::neg(a[0].toTensor())}; }}};
  spec.wraps_library = true;  // an ATen op: no project library
  const BenchRecord r = MeasureCase(spec, spec.cases.front());
  ASSERT_FALSE(r.failed()) << r.problems.front();
  EXPECT_GT(r.host_us_per_call, 0);
  ASSERT_EQ(r.baselines.size(), 1u);
  EXPECT_GT(r.baselines[0].host_us_per_call, 0);
  const Tolerance bf16 = DefaultTolerance(DType::kBFloat16);
  EXPECT_EQ(r.tolerance.atol, bf16.atol);
  EXPECT_EQ(r.tolerance.rtol, bf16.rtol);
  const nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["host_us_per_call"], r.host_us_per_call);
  EXPECT_EQ(j["baselines"][0]["host_us_per_call"], r.baselines[0].host_us_per_call);
  EXPECT_EQ(j["atol"], bf16.atol);
}

}  // namespace
}  // namespace kb::harness
