// Dtype names and the default correctness tolerance per output dtype.
// Torch-free so the table is unit-tested on machines without a GPU.
// The table and its reasoning live in docs/harness.md; keep them in sync.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kb::harness {

enum class DType { kFloat64, kFloat32, kFloat16, kBFloat16, kOther };

std::string_view DTypeName(DType dtype);  // "fp32", "fp16", "bf16", "fp64"
std::optional<DType> ParseDType(std::string_view name);

// An element passes when |got - want| <= atol + rtol * |want| (torch.allclose).
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// Defaults for comparing an output of `dtype` against a float64 reference.
Tolerance DefaultTolerance(DType dtype);

}  // namespace kb::harness
