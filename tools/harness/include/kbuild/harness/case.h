// One shape/dtype/layout combination an op is checked or timed on.
#pragma once

#include <ATen/core/ATen_fwd.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kbuild/harness/tolerance.h"

namespace kb::harness {

struct Case {
  std::vector<std::int64_t> shape;  // the op's main shape; the arg factory reads it
  at::ScalarType dtype = at::kFloat;
  // Inputs start one element past an aligned address, so data_ptr is
  // misaligned for vector loads.
  bool offset_view = false;
  // Inputs are every other element of a wider buffer (stride 2 in the last dim).
  bool non_contiguous = false;
  // The op must refuse this case (throw); accepting it fails the case.
  bool expects_rejection = false;
  // Benchmarks only: too small to time meaningfully; reported, never scored.
  bool correctness_only = false;
  std::optional<Tolerance> tolerance;  // overrides the dtype default
  // Input and InPlace values are randn x magnitude; Params stay ~1 (weights
  // of real models are). The k*Magnitude constants below say when to use one.
  double magnitude = 1.0;
  // More than 2^31 elements (64-bit indexing): one trial, and skipped with the
  // reason when the device has less free memory than HugeCaseDeviceBytes.
  // MakeCases sets it for shapes of 2^31 elements or more.
  bool huge = false;
  // What a huge case needs free on the device when its shape is not one
  // tensor's (a GEMM's [M, N, K]): HugeCaseDeviceBytes then returns it.
  std::optional<std::int64_t> device_bytes;

  std::string Name() const;  // "7x33 bf16 x1e-4 offset_view"
  std::vector<std::string> Flags() const;
};

DType ToDType(at::ScalarType type);

// What a benchmark's value check compares with: the case's tolerance, else
// the default of its dtype.
Tolerance CaseTolerance(const Case& c);

struct CaseFlags {
  bool offset_view = false;
  bool non_contiguous = false;
  bool expects_rejection = false;
  bool correctness_only = false;
  double magnitude = 1.0;
  bool huge = false;
};

// Input magnitudes beyond ~1, each one line in a test:
//   MakeCases(shapes, dtypes, {.magnitude = kTinyMagnitude})
// Tiny: mean(x^2) = 1e-8, far below a 1e-6..1e-5 eps, so eps sets the scale
// and a norm that drops or misplaces eps is off by 10-100x. Outputs that
// scale with the input (elementwise ops) shrink below the dtype's atol:
// there, give the case its own tolerance.
inline constexpr double kTinyMagnitude = 1e-4;
// Large: exp(1000) overflows even fp32, so softmax-like ops must subtract
// the row max; products and sums of squares grow by 1e6.
inline constexpr double kLargeMagnitude = 1e3;

// The dtype's largest finite value / 16. randn never reaches 16 sigma in
// practice, so every value stays finite in the dtype. For fp16 (4094) an
// fp32 sum of squares of a row stays finite (4094^2 x 1M = 1.7e13): norms
// must pass it. For bf16 and fp32 (2.1e37) the square overflows fp32 by
// design: use it for ops without products (copies, adds, max).
double NearMaxMagnitude(at::ScalarType dtype);

// MakeCases with each dtype's NearMaxMagnitude.
std::vector<Case> NearMaxCases(const std::vector<std::vector<std::int64_t>>& shapes,
                               const std::vector<at::ScalarType>& dtypes, CaseFlags flags = {});

// Every shape with every dtype, all with the same flags.
std::vector<Case> MakeCases(const std::vector<std::vector<std::int64_t>>& shapes,
                            const std::vector<at::ScalarType>& dtypes, CaseFlags flags = {});

// Rows x hidden shapes that catch tail and vector-width bugs: one row, one
// element, odd sizes, sizes one past a multiple of 8, and a realistic size.
std::vector<std::vector<std::int64_t>> EdgeRowShapes();

// More than 65,535 rows: rows on gridDim.y (limit 65,535) or a 16-bit row
// index fail here. A prime row count and an odd hidden size.
std::vector<std::vector<std::int64_t>> ManyRowShapes();

// More than 2^31 elements ((2^21 + 1) x 1024): a 32-bit element offset
// wraps. MakeCases marks them huge (one trial, memory check).
std::vector<std::vector<std::int64_t>> HugeShapes();

// What a huge case needs free on the device, estimated per element: the
// op's input and output (2 x dtype size) plus 40 bytes of float64 copies
// (reference args, the reference's temporaries, the result). bf16 at 2^31
// elements: about 95 GB. The case's device_bytes when it has one.
std::int64_t HugeCaseDeviceBytes(const Case& c);

inline constexpr std::int64_t kHugeElements = std::int64_t{1} << 31;

}  // namespace kb::harness
