// Element types the launchers accept. Plain C++ so the torch binding can name
// them without CUDA device headers.
#pragma once

namespace kernels_common {

enum class DType { kFloat32, kFloat16, kBFloat16 };

inline const char* DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
  }
  return "unknown";
}

inline int DTypeSize(DType t) { return t == DType::kFloat32 ? 4 : 2; }

}  // namespace kernels_common
