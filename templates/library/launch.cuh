// Host-side launch helpers of the library, for any op over rows: the cached
// device attributes and a kernel's resident blocks per SM, dtype dispatch
// (DispatchDtype: one tensor dtype; DispatchInputParam: an input dtype plus a
// per-column parameter such as a norm's weight, of that dtype or float32),
// vector-width dispatch, the row access (row_span.h: whole vectors, a split
// row or narrower vectors) and row plan (row_plan.h) of a launch, and the
// path dispatch that turns a plan into template arguments. Contract: every
// dispatch calls f once with the matching compile-time types and returns f's
// cudaError_t, or cudaErrorInvalidValue for an unsupported value (bindings
// check dtypes first, with readable messages).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "dtype.h"
#include "row_plan.h"
#include "row_span.h"

namespace kernels_common {

constexpr int kMaxCachedDevices = 64;

// Reads an int of the current device once: read(device, &value) is called
// until it succeeds with a value > 0, which is then kept in cache (one slot
// per device, zero-initialized; devices past the last slot are read every
// time); fallback otherwise.
template <typename Read>
int CachedPerDevice(std::atomic<int> (&cache)[kMaxCachedDevices], int fallback, Read read) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return fallback;
  const bool cached = device < kMaxCachedDevices;
  int value = cached ? cache[device].load(std::memory_order_relaxed) : 0;
  if (value > 0) return value;
  if (read(device, &value) != cudaSuccess || value <= 0) return fallback;
  if (cached) cache[device].store(value, std::memory_order_relaxed);
  return value;
}

// cudaGetDeviceProperties costs microseconds; launches for 1-128 tokens take
// about as long, so each attribute is read once per device. `fallback` is
// returned when the query fails.
template <cudaDeviceAttr kAttribute>
int CachedDeviceAttribute(int fallback) {
  static std::atomic<int> cache[kMaxCachedDevices] = {};
  return CachedPerDevice(cache, fallback, [](int device, int* value) {
    return cudaDeviceGetAttribute(value, kAttribute, device);
  });
}

// Blocks of kKernel, kThreads threads each, that one SM holds at once (its
// registers and shared memory decide), read once per device; 0 when the
// query fails, so a caller that picks kKernel only for launches that fit the
// GPU at once takes its other kernel.
template <auto kKernel, int kThreads>
int CachedResidentBlocksPerSm() {
  static std::atomic<int> cache[kMaxCachedDevices] = {};
  return CachedPerDevice(cache, 0, [](int, int* value) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(value, kKernel, kThreads, 0);
  });
}

inline int CachedSmCount() {
  return CachedDeviceAttribute<cudaDevAttrMultiProcessorCount>(1);
}

// Threads one SM holds at once (2048 on H100 / H200).
inline int CachedThreadsPerSm() {
  return CachedDeviceAttribute<cudaDevAttrMaxThreadsPerMultiProcessor>(2048);
}

// L2's bytes (50 MB on H100, 60 MB on H200); 0 when the query fails.
inline int64_t CachedL2Bytes() {
  return CachedDeviceAttribute<cudaDevAttrL2CacheSize>(0);
}

// Whether a launch that reads read_bytes once and writes written_bytes should
// take its evict-first reads (vec.cuh's read-once loads): when its output
// fits in half of L2 and its traffic does not, L2 then keeps the output (for
// the next kernel) rather than the dead inputs. Under L2 everything stays
// anyway; an output past half of L2 gains nothing and the hinted loads cost
// 2-3%. H100 (results/h100-2026-12-06): hinted everywhere, adaln per-token
// 1x6144x2048 10% faster, 2x6144x2048 unchanged, swiglu 8192x12288 3% slower
// (run H); by this rule, adaln and the gated residual 3-12% faster where it
// holds (run I), swiglu 1024x12288 5-6% (run J), the rest the same kernels.
// EVICT_READS_FIRST_RULE=0 (a knob for A/B runs) never takes them.
#ifndef EVICT_READS_FIRST_RULE
#define EVICT_READS_FIRST_RULE 1
#endif
inline bool EvictReadsFirstPays(int64_t read_bytes, int64_t written_bytes) {
  const int64_t l2 = CachedL2Bytes();
  return EVICT_READS_FIRST_RULE && l2 > 0 && written_bytes <= l2 / 2 &&
         read_bytes + written_bytes > l2;
}

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for T in {float, __half, __nv_bfloat16}: ops whose
// tensors share one dtype (softmax, rope, the gated activations).
template <typename F>
cudaError_t DispatchDtype(DType t, F&& f) {
  switch (t) {
    case DType::kFloat32:
      return f(TypeTag<float>{});
    case DType::kFloat16:
      return f(TypeTag<__half>{});
    case DType::kBFloat16:
      return f(TypeTag<__nv_bfloat16>{});
  }
  return cudaErrorInvalidValue;
}

// Calls f(TypeTag<X>{}, TypeTag<W>{}) for the supported (input, parameter)
// pairs: a per-column parameter (a norm's weight or bias) of the input's
// dtype or float32. Without a parameter, W is X.
template <typename F>
cudaError_t DispatchInputParam(DType x, DType w, F&& f) {
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

// Everything a row launcher decides before choosing kernels.
struct RowLaunch {
  RowAccess access;  // vector width, and whether rows are split
  RowPlan plan;
  float inv_hidden;  // 1 / hidden
};

// Sizes out of range give cudaErrorInvalidValue (the binding checks them
// first with readable messages); a grid past 2^31 - 1 blocks gives
// cudaErrorInvalidConfiguration. row_tensors: the tensors read or written
// row by row (x and y, or x and residual), of elem_bytes elements.
// max_vecs: the op's register budget, max_group_warps its largest block on
// the short-row paths, short_row_vecs the vectors a lane holds there
// (PlanRows).
inline cudaError_t PlanRowLaunch(int64_t rows, int64_t hidden, int elem_bytes,
                                 std::initializer_list<VectorAccess> row_tensors,
                                 VectorAccess weight, RowLaunch* out,
                                 int max_vecs = kDefaultRowVecs,
                                 int max_group_warps = kMaxGroupWarps,
                                 int short_row_vecs = 1) {
  if (rows <= 0 || hidden <= 0 || hidden > (int64_t{1} << 30)) {
    return cudaErrorInvalidValue;
  }
  out->access = ChooseRowAccess(16 / elem_bytes, hidden, row_tensors, weight);
  out->plan = PlanRows(rows, out->access.vectors, CachedSmCount(),
                       CachedThreadsPerSm(), max_vecs, max_group_warps, short_row_vecs);
  out->inv_hidden = 1.f / static_cast<float>(hidden);
  if (out->plan.blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  return cudaSuccess;
}

// Calls f(TypeTag<T>, TypeTag<W>, integral_constant<int, V>, bool_constant
// kSplit) for the runtime dtypes and row access. A split row always takes
// 16-byte vectors, so no split kernel is instantiated at narrower widths.
template <typename F>
cudaError_t DispatchRowOp(DType x, DType w, const RowAccess& access, F&& f) {
  return DispatchInputParam(x, w, [&](auto xt, auto wt) {
    using T = typename decltype(xt)::type;
    if (access.split) {
      return f(xt, wt, std::integral_constant<int, 16 / sizeof(T)>{},
               std::true_type{});
    }
    return DispatchVectorWidth<T>(access.width, [&](auto vc) {
      return f(xt, wt, vc, std::false_type{});
    });
  });
}

template <RowPath kPath>
using PathTag = std::integral_constant<RowPath, kPath>;

// Returns register_launch(integral_constant kVecs, integral_constant kGroup)
// for a register-resident path, loop_launch() for the two-pass one: the
// launch status. kMaxVecs: the register budget the plan was made with
// (PlanRows' max_vecs); no kernel holding more is instantiated.
// kShortRowVecs: PlanRows' short_row_vecs; the two-vector lanes-per-row
// kernels are instantiated only when it is 2.
template <int kMaxVecs = kDefaultRowVecs, int kShortRowVecs = 1, typename RegisterLaunch,
          typename LoopLaunch>
cudaError_t LaunchForPath(RowPath path, RegisterLaunch&& register_launch,
                          LoopLaunch&& loop_launch) {
  auto launch = [&](auto path_tag) -> cudaError_t {
    constexpr RowShape s = ShapeOf(decltype(path_tag)::value);
    if constexpr (s.vecs > kMaxVecs) {
      return cudaErrorInvalidValue;  // a plan made with a larger budget
    } else if constexpr (s.group != kWarpSize && s.group != kWholeBlock &&
                         s.vecs > kShortRowVecs) {
      return cudaErrorInvalidValue;  // a plan made with two vectors a lane
    } else {
      return register_launch(std::integral_constant<int, s.vecs>{},
                             std::integral_constant<int, s.group>{});
    }
  };
  switch (path) {
    case RowPath::kLanes4:
      return launch(PathTag<RowPath::kLanes4>{});
    case RowPath::kLanes8:
      return launch(PathTag<RowPath::kLanes8>{});
    case RowPath::kLanes16:
      return launch(PathTag<RowPath::kLanes16>{});
    case RowPath::kLanes4x2:
      return launch(PathTag<RowPath::kLanes4x2>{});
    case RowPath::kLanes8x2:
      return launch(PathTag<RowPath::kLanes8x2>{});
    case RowPath::kLanes16x2:
      return launch(PathTag<RowPath::kLanes16x2>{});
    case RowPath::kWarp1:
      return launch(PathTag<RowPath::kWarp1>{});
    case RowPath::kWarp2:
      return launch(PathTag<RowPath::kWarp2>{});
    case RowPath::kWarp4:
      return launch(PathTag<RowPath::kWarp4>{});
    case RowPath::kBlock1:
      return launch(PathTag<RowPath::kBlock1>{});
    case RowPath::kBlock2:
      return launch(PathTag<RowPath::kBlock2>{});
    case RowPath::kBlock4:
      return launch(PathTag<RowPath::kBlock4>{});
    case RowPath::kBlock8:
      return launch(PathTag<RowPath::kBlock8>{});
    case RowPath::kBlockLoop:
      return loop_launch();
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels_common
