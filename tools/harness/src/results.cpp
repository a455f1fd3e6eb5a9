#include "kbuild/harness/results.h"

#include <map>

#include "file_write.h"

namespace kb::harness {

std::string_view FailReasonName(FailReason reason) {
  switch (reason) {
    case FailReason::kNone:
      return "";
    case FailReason::kMismatch:
      return "mismatch";
    case FailReason::kNonFinite:
      return "nonfinite";
    case FailReason::kUnwritten:
      return "unwritten";
    case FailReason::kInputModified:
      return "input_modified";
    case FailReason::kLateWrite:
      return "late_write";
    case FailReason::kOutOfBounds:
      return "out_of_bounds_write";
    case FailReason::kCudaError:
      return "cuda_error";
    case FailReason::kNotRejected:
      return "not_rejected";
    case FailReason::kWrongRejection:
      return "wrong_rejection";
    case FailReason::kSpecError:
      return "spec_error";
    case FailReason::kNoProjectKernel:
      return "no_project_kernel";
  }
  return "unknown";
}

nlohmann::json ToJson(const TestRecord& r) {
  nlohmann::json j = {
      {"schema", kTestSchema},
      {"test", r.test},
      {"op", r.op},
      {"case", r.case_name},
      {"shape", r.shape},
      {"dtype", r.dtype},
      {"flags", r.flags},
      {"verdict", r.skipped ? "skip" : r.passed() ? "pass" : "fail"},
      {"reason", FailReasonName(r.reason)},
      {"message", r.message},
      {"trials", r.trials},
      {"seed", r.seed},
      {"max_abs_error", r.max_abs_error},
      {"rel_l2_error", r.rel_l2_error},
      {"atol", r.tolerance.atol},
      {"rtol", r.tolerance.rtol},
      {"unwritten", r.unwritten},
      {"first_unwritten", r.first_unwritten},
  };
  AddProvenanceJson(j, r.provenance);
  return j;
}

namespace {

nlohmann::json ToJson(const Summary& s) {
  return {{"median", s.median}, {"p10", s.p10},   {"p90", s.p90},    {"min", s.min},
          {"max", s.max},       {"mean", s.mean}, {"count", s.count}};
}

}  // namespace

nlohmann::json ToJson(const BenchRecord& r) {
  nlohmann::json baselines = nlohmann::json::array();
  for (const BaselineResult& b : r.baselines) {
    baselines.push_back({{"name", b.name},
                         {"time_us", ToJson(b.time_us)},
                         {"speedup", b.speedup},
                         {"host_us_per_call", b.host_us_per_call}});
  }
  nlohmann::json j = {
      {"benchmark", r.benchmark},
      {"op", r.op},
      {"case", r.case_name},
      {"shape", r.shape},
      {"dtype", r.dtype},
      {"correctness_only", r.correctness_only},
      {"mode", r.mode},
      {"warmup", r.warmup},
      {"iterations", r.iterations},
      {"bytes", r.bytes},
      {"flops", r.flops},
      {"time_us", ToJson(r.time_us)},
      {"host_us_per_call", r.host_us_per_call},
      {"gbps", r.gbps},
      {"percent_of_peak", r.percent_of_peak},
      {"percent_of_bandwidth", r.percent_of_bandwidth},
      {"percent_of_compute_peak", r.percent_of_compute_peak},
      {"tflops", r.tflops},
      {"compute_unit", r.compute_unit},
      {"compute_peak_tflops", r.compute_peak_tflops},
      {"host_over_event", r.host_over_event},
      {"launch_floor_us", r.launch_floor_us},
      {"checked_against", r.checked_against},
      {"atol", r.tolerance.atol},
      {"rtol", r.tolerance.rtol},
      {"check_max_abs_error", r.check_max_abs_error},
      {"check_rel_l2_error", r.check_rel_l2_error},
      {"check_ms", r.check_ms},
      {"baselines", baselines},
      {"verdict", r.failed() ? "fail" : "ok"},
      {"problems", r.problems},
  };
  AddProvenanceJson(j, r.provenance);
  return j;
}

nlohmann::json BenchDocument(const std::vector<BenchRecord>& records, const Peak& peak,
                             const std::string& device) {
  nlohmann::json cases = nlohmann::json::array();
  std::map<std::string, std::vector<double>> speedups;  // baseline name -> scored speedups
  int failed = 0;
  for (const BenchRecord& r : records) {
    cases.push_back(ToJson(r));
    failed += r.failed() ? 1 : 0;
    if (r.correctness_only || r.failed()) continue;
    for (const BaselineResult& b : r.baselines) speedups[b.name].push_back(b.speedup);
  }
  nlohmann::json geomean = nlohmann::json::object();
  for (const auto& [name, values] : speedups) {
    geomean[name] = {{"speedup", GeometricMean(values)}, {"cases", values.size()}};
  }
  return {
      {"schema", kBenchSchema},
      {"device", device},
      {"peak",
       {{"copy_bandwidth_gbps", peak.bandwidth_gbps},
        {"dram_theoretical_gbps", peak.dram_gbps},
        {"tflops", peak.tflops},
        {"source", peak.source}}},
      {"cases", cases},
      {"geomean_speedup", geomean},
      {"failed", failed},
  };
}

namespace {

// Names and messages come from kernels and compilers: invalid UTF-8 becomes U+FFFD rather than
// a throw from dump() that would end the test binary.
std::string DumpJson(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

bool AppendJsonLine(const std::string& path, const nlohmann::json& value, std::string* error) {
  return AppendToFile(path, DumpJson(value, -1) + "\n", error);
}

bool WriteJsonFile(const std::string& path, const nlohmann::json& value, std::string* error) {
  return ReplaceFile(path, DumpJson(value, 2) + "\n", error);
}

}  // namespace kb::harness
