#include "kbuild/harness/physics.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kb::harness {

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

namespace {

std::optional<double> ParsePositive(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(value > 0)) return std::nullopt;
  return value;
}

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  *ok = static_cast<bool>(in);
  return buffer.str();
}

}  // namespace

std::optional<Peak> ParseGpuJson(const std::string& text, const std::string& path,
                                 std::string* error) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = path + ": not a JSON object\nhint: regenerate it with `kbuild doctor --json`";
    return std::nullopt;
  }
  const nlohmann::json& measured = doc.contains("measured") ? doc["measured"] : doc;
  auto bw = measured.find("copy_bandwidth_gbps");
  if (bw == measured.end() || !bw->is_number() || !(bw->get<double>() > 0)) {
    *error = path +
             ": no positive number 'copy_bandwidth_gbps'\nhint: measure it with "
             "`kbuild doctor` on the GPU machine, or set KBUILD_PEAK_BW_GBPS";
    return std::nullopt;
  }
  Peak peak{bw->get<double>(), 0, path};
  auto tf = measured.find("peak_tflops");
  if (tf != measured.end() && tf->is_number()) peak.tflops = tf->get<double>();
  return peak;
}

std::optional<Peak> PeakFromEnvironment(const EnvLookup& env, std::string* error) {
  error->clear();
  if (auto bw = env("KBUILD_PEAK_BW_GBPS")) {
    auto value = ParsePositive(*bw);
    if (!value) {
      *error =
          "KBUILD_PEAK_BW_GBPS='" + *bw + "' is not a positive number\nhint: give GB/s, e.g. 4273";
      return std::nullopt;
    }
    Peak peak{*value, 0, "KBUILD_PEAK_BW_GBPS"};
    if (auto tf = env("KBUILD_PEAK_TFLOPS")) peak.tflops = ParsePositive(*tf).value_or(0);
    return peak;
  }
  auto path = env("KBUILD_GPU_JSON");
  if (!path) return std::nullopt;
  bool ok = false;
  std::string text = ReadFile(*path, &ok);
  if (!ok) {
    *error = "KBUILD_GPU_JSON=" + *path + ": cannot read the file\nhint: check the path";
    return std::nullopt;
  }
  return ParseGpuJson(text, *path, error);
}

PhysicsVerdict CheckPhysics(double gbps, double tflops, const Peak& peak) {
  auto over = [](double got, double limit) { return limit > 0 && got > limit * kImpossibleSlack; };
  std::ostringstream message;
  if (over(gbps, std::max(peak.bandwidth_gbps, peak.dram_gbps))) {
    message << "physically impossible: " << gbps << " GB/s is above ";
    if (peak.bandwidth_gbps > 0) {
      message << "the measured copy bandwidth " << peak.bandwidth_gbps << " GB/s (" << peak.source
              << ")" << (peak.dram_gbps > 0 ? " and " : "");
    }
    if (peak.dram_gbps > 0) message << "the DRAM's theoretical " << peak.dram_gbps << " GB/s";
    message << "; the op skips work, runs outside the timed stream, or the byte count is wrong";
    return {true, message.str()};
  }
  if (over(tflops, peak.tflops)) {
    message << "physically impossible: " << tflops << " TFLOP/s is above the peak " << peak.tflops
            << " TFLOP/s (" << peak.source << "); check the flop formula and the timing";
    return {true, message.str()};
  }
  return {};
}

const char* ComputeUnitName(ComputeUnit unit) {
  switch (unit) {
    case ComputeUnit::kNone:
      return "none";
    case ComputeUnit::kFp32CudaCores:
      return "fp32 CUDA cores";
  }
  return "unknown";
}

namespace {

// fp32 FMA lanes per SM (the CUDA C Programming Guide's throughput table):
// 64 on Volta, Turing and the A100; 128 from sm_86 on (Ampere consumer, Ada,
// Hopper, Blackwell).
int Fp32LanesPerSm(int major, int minor) {
  if (major == 7 || (major == 8 && minor == 0)) return 64;
  if (major >= 8) return 128;
  return 0;
}

}  // namespace

double TheoreticalPeakTflops(ComputeUnit unit, const GpuClockFacts& gpu) {
  if (unit != ComputeUnit::kFp32CudaCores || gpu.sm_count <= 0 || !(gpu.clock_khz > 0)) return 0;
  const int lanes = Fp32LanesPerSm(gpu.major, gpu.minor);
  return gpu.sm_count * lanes * 2.0 * gpu.clock_khz * 1e3 / 1e12;
}

double TheoreticalDramGbps(const GpuClockFacts& gpu) {
  if (!(gpu.memory_clock_khz > 0) || gpu.memory_bus_bits <= 0) return 0;
  return 2.0 * gpu.memory_clock_khz * 1e3 * (gpu.memory_bus_bits / 8.0) / 1e9;
}

PhysicsVerdict CheckComputePeak(double tflops, double unit_peak_tflops, ComputeUnit unit) {
  if (!(unit_peak_tflops > 0) || !(tflops > unit_peak_tflops * kImpossibleSlack)) return {};
  std::ostringstream m;
  m.precision(3);
  m << "physically impossible: " << tflops << " TFLOP/s is above the theoretical peak of the "
    << ComputeUnitName(unit) << " (" << unit_peak_tflops
    << " TFLOP/s); the op skips work, runs on other units, or the flop count is wrong";
  return {true, m.str()};
}

}  // namespace kb::harness
