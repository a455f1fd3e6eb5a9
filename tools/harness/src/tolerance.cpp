#include "kbuild/harness/tolerance.h"

namespace kb::harness {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
      return "fp64";
    case DType::kFloat32:
      return "fp32";
    case DType::kFloat16:
      return "fp16";
    case DType::kBFloat16:
      return "bf16";
    case DType::kOther:
      break;
  }
  return "other";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (DType d : {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    if (name == DTypeName(d)) return d;
  }
  return std::nullopt;
}

// Output rounding alone costs half an ulp (fp16 4.9e-4, bf16 3.9e-3 relative);
// fp32 accumulation over a 16K-long row costs ~sqrt(n) * 6e-8 ~ 1e-5. The
// bounds allow that plus about one more ulp, and nothing more: a kernel that
// accumulates bf16 in bf16 or drops a term fails. Why each number: docs/harness.md.
Tolerance DefaultTolerance(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
      return {1e-12, 1e-12};
    case DType::kFloat32:
      return {1e-5, 1e-5};
    case DType::kFloat16:
      return {1e-3, 1e-3};
    case DType::kBFloat16:
      return {1e-2, 1.6e-2};
    case DType::kOther:
      break;
  }
  return {0, 0};  // integers and bools must match exactly
}

}  // namespace kb::harness
