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
  // The DRAM's theoretical rate (TheoreticalDramGbps); 0 = unknown. A kernel
  // that mostly reads can beat the copy by more than timing noise (a
  // cross-entropy over fp32 logits ran at 106% of the copy on the H200),
  // never this.
  double dram_gbps = 0;
};

// Timing noise covers up to 5% above a peak; more is not noise.
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
// Bytes are impossible above the larger of the copy bandwidth and the DRAM's
// theoretical rate, with kImpossibleSlack.
PhysicsVerdict CheckPhysics(double gbps, double tflops, const Peak& peak);

// The units a benchmark's flops run on: the roof a compute-bound case's "% of
// peak" is measured against (BenchSpec::compute_unit).
enum class ComputeUnit {
  kNone,           // the op is judged by bandwidth alone
  kFp32CudaCores,  // fp32 FMAs on the CUDA cores (no tensor cores, no TF32)
};
const char* ComputeUnitName(ComputeUnit unit);  // "fp32 CUDA cores"

struct GpuClockFacts {
  int major = 0, minor = 0;  // compute capability
  int sm_count = 0;
  double clock_khz = 0;  // the SM boost clock (cudaDevAttrClockRate)
  double memory_clock_khz = 0;  // cudaDevAttrMemoryClockRate
  int memory_bus_bits = 0;      // cudaDevAttrGlobalMemoryBusWidth
};

// The DRAM's theoretical rate in GB/s: two transfers per memory clock across
// the bus (H200: 6016 bits at 3.2 GHz, 4814 GB/s, as kbuild doctor prints it).
// 0 when the clock or the width is unknown.
double TheoreticalDramGbps(const GpuClockFacts& gpu);

// Theoretical peak of `unit` in TFLOP/s: SMs x FMA lanes per SM x 2 flops x the
// boost clock (H200: 132 x 128 x 2 x 1.98 GHz = 66.9). 0 when the unit is kNone or
// the architecture is not in the table (then no compute "% of peak" is shown).
double TheoreticalPeakTflops(ComputeUnit unit, const GpuClockFacts& gpu);

// A case above its unit's theoretical peak (with kImpossibleSlack) did less
// work than its flop formula says, or ran on other units (TF32 tensor cores
// for an fp32 op). A peak of 0 checks nothing.
PhysicsVerdict CheckComputePeak(double tflops, double unit_peak_tflops, ComputeUnit unit);

}  // namespace kb::harness
