#include "kbuild/harness/host_ahead.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kb::harness {

double LeadUs(int calls, double host_us_per_iteration) {
  return std::min(kLeadFactor * calls * host_us_per_iteration + kLeadAllowanceUs, kMaxLeadUs);
}

double RetryLeadUs(double lead_us, int attempt) {
  return std::min(std::ldexp(lead_us, attempt), kMaxLeadUs);
}

double PilotSpinUs(int calls) { return std::min(calls * kPilotSpinUsPerCall, kMaxLeadUs); }

std::string HostFellBehindProblem(const std::vector<double>& call_enqueued_us,
                                  const std::vector<double>& gpu_reached_us, double lead_us) {
  const std::size_t calls = std::min(call_enqueued_us.size(), gpu_reached_us.size());
  std::size_t late = 0;
  while (late < calls && call_enqueued_us[late] <= gpu_reached_us[late]) ++late;
  if (late == calls) return "";
  char text[768];
  std::snprintf(text, sizeof text,
                "the host fell behind the GPU: timed call %zu of %zu was enqueued %.1f us after "
                "the chunk's %.1f us spin began, but the GPU reached its start event at %.1f us, "
                "so the GPU may have waited for the host inside the timed call\nhint: a call "
                "that waits for the GPU (a synchronize, .item(), a copy to the host) cannot be "
                "timed ahead of it, nor one whose host cost grows after the first calls "
                "(compiling, allocating) or one that enqueues more than %d GPU operations (a "
                "stream holds %d)",
                late + 1, calls, call_enqueued_us[late], lead_us, gpu_reached_us[late],
                kMaxOperationsPerCall, kQueueOperations);
  return text;
}

int IterationsWithinBudget(int requested, double warmup_us_per_call) {
  if (!(warmup_us_per_call > 0)) return requested;
  const double fitting = std::floor(kTimedBudgetUs / warmup_us_per_call);
  if (fitting >= requested) return requested;
  return std::min(requested, std::max(kMinCappedIterations, static_cast<int>(fitting)));
}

}  // namespace kb::harness
