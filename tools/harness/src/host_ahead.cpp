#include "kbuild/harness/host_ahead.h"

#include <algorithm>
#include <cstdio>

namespace kb::harness {

double LeadUs(int calls, double host_us_per_iteration) {
  return std::min(kLeadFactor * calls * host_us_per_iteration + kLeadAllowanceUs, kMaxLeadUs);
}

double PilotSpinUs(int calls) { return std::min(calls * kPilotSpinUsPerCall, kMaxLeadUs); }

std::string HostFellBehindProblem(int calls, double host_us_per_iteration, double enqueue_us) {
  const double lead_us = LeadUs(calls, host_us_per_iteration);
  if (enqueue_us <= lead_us) return "";
  char how[128];
  if (lead_us >= kMaxLeadUs) {
    std::snprintf(how, sizeof how, "the %.0f ms cap; the pilot measured %.1f us per call",
                  kMaxLeadUs / 1000, host_us_per_iteration);
  } else {
    std::snprintf(how, sizeof how, "%.1f x the pilot's %.1f us per call + %.0f us", kLeadFactor,
                  host_us_per_iteration, kLeadAllowanceUs);
  }
  char text[768];
  std::snprintf(text, sizeof text,
                "the host fell behind the GPU: enqueuing %d timed calls took %.1f us of host "
                "time, more than the %.1f us spin that kept the GPU ahead of them (%s), so the "
                "GPU may have waited for the host inside a timed call\nhint: a call that waits "
                "for the GPU (a synchronize, .item(), a copy to the host) cannot be timed ahead "
                "of it, nor one whose host cost grows after the first calls (compiling, "
                "allocating) or one that enqueues more than %d GPU operations (a stream holds "
                "%d)",
                calls, enqueue_us, lead_us, how, kMaxOperationsPerCall, kQueueOperations);
  return text;
}

}  // namespace kb::harness
