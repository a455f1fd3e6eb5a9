// What this GPU can physically do, and the check that rejects results faster
// than that. Torch-free and CUDA-free.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace kb::harness {

struct Peak {
  double bandwidth_gbps = 0;  // measured device-to-device copy, read + write counted
  double tflops = 0;          // 0 = unknown
  std::string source;         // where the numbers came from, for the report
};

// A measured kernel may beat the copy measurement by a little (a pure read
// moves bytes one way only, timing noise); 5% more than the copy bandwidth
// is no longer noise.
inline constexpr double kImpossibleSlack = 1.05;

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup ProcessEnvironment();

// KBUILD_PEAK_BW_GBPS / KBUILD_PEAK_TFLOPS (numbers), else the file named by
// KBUILD_GPU_JSON (keys `copy_bandwidth_gbps`, `peak_tflops`, at the top or
// under "measured"). nullopt with *error set when a source is present but
// bad; nullopt with an empty *error when none is given.
std::optional<Peak> PeakFromEnvironment(const EnvLookup& env, std::string* error);
std::optional<Peak> ParseGpuJson(const std::string& text, const std::string& path,
                                 std::string* error);

struct PhysicsVerdict {
  bool impossible = false;
  std::string message;  // empty when possible
};

// gbps/tflops of 0 are not checked; a peak of 0 (unknown) checks nothing.
PhysicsVerdict CheckPhysics(double gbps, double tflops, const Peak& peak);

}  // namespace kb::harness
