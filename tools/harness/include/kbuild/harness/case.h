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

  std::string Name() const;  // "7x33 bf16 offset_view"
  std::vector<std::string> Flags() const;
};

DType ToDType(at::ScalarType type);

struct CaseFlags {
  bool offset_view = false;
  bool non_contiguous = false;
  bool expects_rejection = false;
  bool correctness_only = false;
};

// Every shape with every dtype, all with the same flags.
std::vector<Case> MakeCases(const std::vector<std::vector<std::int64_t>>& shapes,
                            const std::vector<at::ScalarType>& dtypes, CaseFlags flags = {});

// Rows x hidden shapes that catch tail and vector-width bugs: one row, one
// element, odd sizes, sizes one past a multiple of 8, and a realistic size.
std::vector<std::vector<std::int64_t>> EdgeRowShapes();

}  // namespace kb::harness
