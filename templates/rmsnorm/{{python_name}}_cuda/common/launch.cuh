// Host-side launch helpers shared by the norm launchers: the cached SM count,
// the vector width allowed by shape and alignment, and the dtype / width
// dispatch that turns runtime values into template arguments.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "dtype.h"

namespace kernels_common {

// cudaGetDeviceProperties costs microseconds; launches for 1-128 tokens take
// about as long, so each attribute is read once per device. `fallback` is
// returned when the query fails.
template <cudaDeviceAttr kAttribute>
int CachedDeviceAttribute(int fallback) {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cache[kMaxDevices] = {};  // 0: not read yet
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= kMaxDevices) {
    return fallback;
  }
  int value = cache[device].load(std::memory_order_relaxed);
  if (value == 0) {
    if (cudaDeviceGetAttribute(&value, kAttribute, device) != cudaSuccess ||
        value <= 0) {
      return fallback;
    }
    cache[device].store(value, std::memory_order_relaxed);
  }
  return value;
}

inline int CachedSmCount() {
  return CachedDeviceAttribute<cudaDevAttrMultiProcessorCount>(1);
}

// Threads one SM holds at once (2048 on H100 / H200).
inline int CachedThreadsPerSm() {
  return CachedDeviceAttribute<cudaDevAttrMaxThreadsPerMultiProcessor>(2048);
}

// One tensor the kernel touches with vector accesses: its base pointer, the
// distance between rows in elements, and its element size in bytes.
struct VectorAccess {
  const void* ptr;
  int64_t row_stride;
  int elem_bytes;
};

// Widest power-of-two width <= max_width such that every row of every tensor
// starts on a width * elem_bytes boundary and the row length divides evenly
// (so gcd(max_width, hidden) for aligned tensors; misaligned views and odd
// sizes get narrower vectors, down to scalars, never wrong answers).
inline int PickVectorWidth(int max_width, int64_t hidden,
                           std::initializer_list<VectorAccess> tensors) {
  int width = max_width;
  auto fits = [&](int v) {
    if (hidden % v != 0) return false;
    for (const VectorAccess& t : tensors) {
      if (t.ptr == nullptr) continue;
      const auto addr = reinterpret_cast<uintptr_t>(t.ptr);
      if (addr % (static_cast<uintptr_t>(v) * t.elem_bytes) != 0) return false;
      if (t.row_stride % v != 0) return false;
    }
    return true;
  };
  while (width > 1 && !fits(width)) width /= 2;
  return width;
}

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<X>{}, TypeTag<W>{}) for the supported (input, weight)
// pairs: weight of the input's dtype or float32. Without a weight, W is X.
template <typename F>
cudaError_t DispatchInputWeight(DType x, DType w, F&& f) {
  if (x == DType::kBFloat16 && w == DType::kBFloat16)
    return f(TypeTag<__nv_bfloat16>{}, TypeTag<__nv_bfloat16>{});
  if (x == DType::kBFloat16 && w == DType::kFloat32)
    return f(TypeTag<__nv_bfloat16>{}, TypeTag<float>{});
  if (x == DType::kFloat16 && w == DType::kFloat16)
    return f(TypeTag<__half>{}, TypeTag<__half>{});
  if (x == DType::kFloat16 && w == DType::kFloat32)
    return f(TypeTag<__half>{}, TypeTag<float>{});
  if (x == DType::kFloat32 && w == DType::kFloat32)
    return f(TypeTag<float>{}, TypeTag<float>{});
  // Supported: input bfloat16/float16/float32 with weight of the same dtype
  // or float32.
  return cudaErrorInvalidValue;
}

// Calls f(std::integral_constant<int, V>{}) for V in {1, 2, 4, 8} up to
// 16 / sizeof(T), so no 32-byte vectors are instantiated for float.
template <typename T, typename F>
cudaError_t DispatchVectorWidth(int width, F&& f) {
  constexpr int kMax = 16 / sizeof(T);
  switch (width) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      if constexpr (kMax >= 8) return f(std::integral_constant<int, 8>{});
      break;
  }
  // Supported widths: powers of two up to 16 bytes per vector.
  return cudaErrorInvalidValue;
}

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int RoundUpToWarp(int64_t threads) {
  return static_cast<int>(CeilDiv(threads, 32) * 32);
}

// Warps per block for group-per-row kernels: as many rows per block as keep
// every SM busy, fewer when the row count is small.
inline int WarpsPerBlockForRows(int64_t rows, int rows_per_warp, int sm_count) {
  for (int warps : {8, 4, 2}) {
    if (CeilDiv(rows, int64_t{warps} * rows_per_warp) >= sm_count) return warps;
  }
  return 1;
}

}  // namespace kernels_common
