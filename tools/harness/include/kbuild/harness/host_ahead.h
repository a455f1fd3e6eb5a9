// The "host kept ahead" rule of eager timing, torch-free so it is unit-tested
// without a GPU. timing.cpp applies it; the Python peer worker
// (tools/harness/python/peer_timing.py) implements the same numbers: keep the
// two in step.
//
// A timed call's dispatch cost (argument checks, allocator, Python) must not
// land between its events. So: a pilot enqueues timed iterations (flush,
// event, call, event) behind a GPU spin and measures their host time; each
// chunk of the timed loop then starts with one spin of LeadUs() and enqueues
// its iterations behind it. Afterwards every call is checked: the host must
// have finished enqueuing its launches before the GPU reached its start event
// (the GPU keeps the host ahead by its own work too: the flush and earlier
// calls). A call that was late may include GPU time spent waiting for the
// host: its chunk is timed again behind a spin twice as long (a host stall,
// e.g. a page fault or another process, is rare and short), and after
// kChunkAttempts late attempts the timing is refused (HostFellBehindProblem)
// rather than published.
#pragma once

#include <string>
#include <vector>

namespace kb::harness {

// The lead over the pilot's host time: 50% for jitter plus a fixed 50 us, the
// whole capped at 500 ms so a call that blocks on the GPU cannot stall a run.
inline constexpr double kLeadFactor = 1.5;
inline constexpr double kLeadAllowanceUs = 50;
inline constexpr double kMaxLeadUs = 500'000;
// The pilot's own spin: long enough to cover the pilot's calls for any
// plausible dispatch cost (100 us per call), same cap.
inline constexpr double kPilotSpinUsPerCall = 100;
// A stream holds 1021 pending operations (kernels, events, memsets each count
// one; measured on an H200, driver 580); past that the host waits for the
// GPU to drain them, which the fell-behind check cannot tell from a slow
// host. So iterations go behind a spin in chunks of at most 32: an iteration
// is a flush and two events plus the call, so a call may enqueue up to 28
// operations.
inline constexpr int kQueueOperations = 1021;
inline constexpr int kIterationsPerSpin = 32;
inline constexpr int kMaxOperationsPerCall = kQueueOperations / kIterationsPerSpin - 3;

// Attempts at one chunk before a late call refuses the timing; attempt k
// (from 0) spins RetryLeadUs(lead, k).
inline constexpr int kChunkAttempts = 3;

// Spin before a chunk of `calls` timed iterations: kLeadFactor x calls x the
// pilot's host time per iteration + kLeadAllowanceUs, at most kMaxLeadUs.
double LeadUs(int calls, double host_us_per_iteration);

// The lead of attempt `attempt` (from 0) at a chunk whose first lead was
// `lead_us`: doubled per attempt, at most kMaxLeadUs.
double RetryLeadUs(double lead_us, int attempt);

// Spin before the pilot's `calls`: calls x kPilotSpinUsPerCall, at most kMaxLeadUs.
double PilotSpinUs(int calls);

// Long calls are timed fewer times: about kTimedBudgetUs of GPU time in all, at
// least kMinCappedIterations (an 8192^3 fp32 GEMM of 23 ms: 43 samples, not 100;
// the median of 43 such samples moves by well under 1%). Calls under 10 ms keep
// the requested count.
inline constexpr double kTimedBudgetUs = 1'000'000;
inline constexpr int kMinCappedIterations = 20;

// The iterations to time: `requested`, cut to the budget by the warm-up's GPU
// time per call (0 = unknown: no cut), never below kMinCappedIterations unless
// fewer were requested.
int IterationsWithinBudget(int requested, double warmup_us_per_call);

// "" when every call of a chunk was enqueued before the GPU reached it:
// call_enqueued_us[i] (host time from just before the chunk's spin was
// enqueued to the return of call i) <= gpu_reached_us[i] (GPU time from the
// spin's start to call i's start event). Else "the host fell behind the GPU:
// ..." naming the first late call, with the numbers and a hint. The host's
// origin is the earlier one, so a late call is never missed.
std::string HostFellBehindProblem(const std::vector<double>& call_enqueued_us,
                                  const std::vector<double>& gpu_reached_us, double lead_us);

}  // namespace kb::harness
