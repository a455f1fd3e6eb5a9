// Result records of correctness cases and benchmark cases, their JSON form
// (schema: docs/harness.md) and how they reach disk. Torch-free.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kbuild/harness/physics.h"
#include "kbuild/harness/provenance.h"
#include "kbuild/harness/stats.h"
#include "kbuild/harness/tolerance.h"

namespace kb::harness {

inline constexpr const char* kTestSchema = "kbuild-harness-test/1";
inline constexpr const char* kBenchSchema = "kbuild-harness-bench/1";

// Why a correctness case failed. Stable strings: kbuild and tests match on them.
enum class FailReason {
  kNone,
  kMismatch,        // values outside tolerance
  kNonFinite,       // NaN/Inf where the reference has none
  kUnwritten,       // output elements still hold the poison
  kInputModified,   // an input (not declared in-place) changed
  kLateWrite,       // outputs changed after the caller's stream was done
  kOutOfBounds,     // bytes around an output or in-place tensor changed
  kCudaError,       // launch or asynchronous CUDA error
  kNotRejected,     // a case that must be rejected was accepted
  kWrongRejection,  // rejected a case it must accept (threw)
  kSpecError,       // the test itself is wrong (shape/count mismatch)
  kNoProjectKernel,  // the op launched no kernel of the project's library (provenance.h)
};
std::string_view FailReasonName(FailReason reason);

struct TestRecord {
  std::string test;       // the test's name
  std::string op;         // "<namespace>::<op>"
  std::string case_name;  // e.g. "7x33 bf16 offset_view"
  std::vector<std::int64_t> shape;
  std::string dtype;
  std::vector<std::string> flags;  // offset_view, non_contiguous, expects_rejection
  int trials = 0;                  // trials run (stops at the first failure)
  std::uint64_t seed = 0;          // seed of the last trial: KBUILD_SEED + 1000003 x case + trial
  FailReason reason = FailReason::kNone;
  std::string message;  // what failed, where, and a hint; empty on pass
  double max_abs_error = 0;
  double rel_l2_error = 0;
  Tolerance tolerance;
  std::int64_t unwritten = 0;
  std::int64_t first_unwritten = -1;
  Provenance provenance;  // kernels the first trial's op call launched
  // Not run (a huge case on a device without the memory): the reason is in
  // `message`, the verdict "skip". Counts as passed: nothing failed.
  bool skipped = false;
  bool passed() const { return reason == FailReason::kNone; }
};
nlohmann::json ToJson(const TestRecord& record);

struct BaselineResult {
  std::string name;
  Summary time_us;
  double speedup = 0;           // baseline median / op median
  double host_us_per_call = 0;  // host time to enqueue one call (timing.h); 0 = not measured
};

struct BenchRecord {
  std::string benchmark;
  std::string op;
  std::string case_name;
  std::vector<std::int64_t> shape;
  std::string dtype;
  bool correctness_only = false;  // tiny shapes: reported, never scored
  std::string mode;               // "events+l2flush" or "graph+rotate"
  int warmup = 0;
  int iterations = 0;
  double bytes = 0;  // the explicit formula's value
  double flops = 0;  // 0 = not given
  Summary time_us;
  double host_us_per_call = 0;  // the op's host time to enqueue one call (timing.h)
  double gbps = 0;
  // The larger of the two shares below: how close the case is to its roof; 0 = unknown.
  double percent_of_peak = 0;
  double percent_of_bandwidth = 0;     // of the measured copy bandwidth; 0 = unknown
  double percent_of_compute_peak = 0;  // of compute_peak_tflops; 0 = no unit or no flops
  double tflops = 0;
  std::string compute_unit;        // BenchSpec::compute_unit's name; "" = none
  double compute_peak_tflops = 0;  // its theoretical peak on this GPU; 0 = unknown
  double host_over_event = 0;  // host-clock / event time of the consistency run
  double launch_floor_us = 0;  // graph mode: an empty kernel timed the same way; 0 = not measured
  // The value check (before and after timing): what the outputs were compared
  // with ("reference" or "baseline '<name>'"), the worse errors of the two
  // checks, and the host time both took.
  std::string checked_against;
  Tolerance tolerance;  // the case's, else the dtype's default (CaseTolerance)
  double check_max_abs_error = 0;
  double check_rel_l2_error = 0;
  double check_ms = 0;
  std::vector<BaselineResult> baselines;
  Provenance provenance;  // kernels one eager op call launched, before timing
  std::vector<std::string> problems;  // each makes the case fail
  bool failed() const { return !problems.empty(); }
};
nlohmann::json ToJson(const BenchRecord& record);

// The whole benchmark document: records plus geometric-mean speedups per
// baseline over performance cases (correctness-only and failed cases excluded).
nlohmann::json BenchDocument(const std::vector<BenchRecord>& records, const Peak& peak,
                             const std::string& device);

// One JSON object per line, appended and flushed: several test binaries can
// share a file and a crash loses only the case in flight. A symlink at `path` is refused.
// Invalid UTF-8 in strings is written as U+FFFD (both writers).
bool AppendJsonLine(const std::string& path, const nlohmann::json& value, std::string* error);
// Writes to a random temp file beside `path` then renames, so readers never see half a
// document and a symlink planted at `path` is replaced, not written through.
bool WriteJsonFile(const std::string& path, const nlohmann::json& value, std::string* error);

}  // namespace kb::harness
