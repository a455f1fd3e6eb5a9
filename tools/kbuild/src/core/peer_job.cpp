#include "core/peer_job.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "core/json_fields.h"
#include "core/message_text.h"

namespace kb {

namespace {

// The dtype names of the harness document the worker maps to torch dtypes.
constexpr std::array<std::string_view, 8> kDtypes = {"bf16",  "fp16",  "fp32",  "fp64",
                                                     "int32", "int64", "uint8", "bool"};

bool IsNumber(const nlohmann::json& j) { return j.is_number() && std::isfinite(j.get<double>()); }

bool IsShape(const nlohmann::json& j) {
  if (!j.is_array() || j.empty()) return false;
  return std::all_of(j.begin(), j.end(), [](const nlohmann::json& d) {
    return d.is_number_integer() && d.get<long long>() >= 0;
  });
}

// Why a timed case cannot go to the worker, or "" when it can.
std::string Unsendable(const nlohmann::json& c) {
  if (!IsShape(c.value("shape", nlohmann::json()))) {
    return "the harness record has no shape (a list of sizes)";
  }
  const nlohmann::json dtype = c.value("dtype", nlohmann::json());
  if (!dtype.is_string() ||
      std::find(kDtypes.begin(), kDtypes.end(), dtype.get<std::string>()) == kDtypes.end()) {
    std::string known;
    for (const std::string_view d : kDtypes) known += (known.empty() ? "" : ", ") + std::string(d);
    return "the harness record's dtype is not one of " + known;
  }
  if (!IsNumber(c.value("atol", nlohmann::json())) ||
      !IsNumber(c.value("rtol", nlohmann::json()))) {
    return "the harness record has no tolerance (atol, rtol): rebuild the project with this "
           "kbuild (kbuild build), whose harness writes it";
  }
  return "";
}

// The asked count, else the one the harness ran (the first timed case's), else its default.
int LaunchCount(const std::optional<int>& asked, const nlohmann::json& cases, const char* key,
                int harness_default) {
  if (asked) return *asked;
  for (const auto& c : cases) {
    const nlohmann::json ran = c.value(key, nlohmann::json());
    if (ran.is_number_integer() && ran.get<long long>() > 0 && ran.get<long long>() < (1 << 30)) {
      return ran.get<int>();
    }
  }
  return harness_default;
}

}  // namespace

bool IsTimedCase(const nlohmann::json& c) {
  return c.is_object() && c.value("verdict", nlohmann::json()) == "ok" &&
         c.value("correctness_only", nlohmann::json(false)) != true;
}

PeerJob MakePeerJob(const nlohmann::json& harness_doc, const PeerJobSettings& s) {
  PeerJob job;
  nlohmann::json cases = nlohmann::json::array();
  nlohmann::json timed = nlohmann::json::array();
  for (const auto& c : ArrayAt(harness_doc, "cases")) {
    if (IsTimedCase(c)) timed.push_back(c);
  }
  for (const auto& c : timed) {
    const nlohmann::json benchmark = c.value("benchmark", nlohmann::json());
    const nlohmann::json name = c.value("case", nlohmann::json());
    if (!benchmark.is_string() || !name.is_string()) continue;  // no name to report it by
    const std::string key = benchmark.get<std::string>() + "/" + name.get<std::string>();
    if (const std::string why = Unsendable(c); !why.empty()) {
      job.skipped.push_back(OneLine(key) + ": " + why);
      continue;
    }
    const nlohmann::json bytes = c.value("bytes", nlohmann::json());
    cases.push_back({{"benchmark", benchmark},
                     {"case", name},
                     {"shape", c["shape"]},
                     {"dtype", c["dtype"]},
                     {"bytes", IsNumber(bytes) ? bytes.get<double>() : 0.0},
                     {"atol", c["atol"]},
                     {"rtol", c["rtol"]},
                     {"correctness_only", false}});
  }
  job.document = {{"schema", kPeerJobSchema},
                  {"peers_file", s.peers_file.string()},
                  {"project_library", s.project_library.string()},
                  {"namespace", s.op_namespace},
                  {"graph", s.graph},
                  {"warmup", LaunchCount(s.warmup, timed, "warmup", 10)},
                  {"iterations", LaunchCount(s.iterations, timed, "iterations", 100)},
                  // As the benchmark binary: --iters asks for exactly that many samples.
                  {"cap_long_calls", !s.iterations.has_value()},
                  {"peak_gbps", s.peak_gbps},
                  {"dram_gbps", s.dram_gbps},
                  {"cases", cases}};
  return job;
}

}  // namespace kb
