// out = x * alpha + y, elementwise, for float32, float16 and bfloat16.
//
// Math: computed in float32 (one fmaf), rounded once to the output type.
// Bytes moved: 3 * n * sizeof(T) (read x and y, write out); no reuse, so the
//   kernel is memory-bound and its target is the measured copy bandwidth.
// Launch shape (common/elementwise.cuh): the n elements as rows of
//   kRowElements (and one shorter last row), 256-thread blocks (128 where
//   256 would leave SMs idle), a 16-byte vector (8 x bf16/fp16 or 4 x fp32)
//   per thread, grid-striding only past 64 waves of resident blocks. When the
//   three pointers sit at different distances from a 16-byte boundary, the
//   widest vectors all three allow (down to scalars); at the same distance, a
//   scalar head and tail around 16-byte vectors.
// measured (H200, 2026-11-30, kbuild bench, before the move to
//   common/elementwise.cuh): 8192x4096 fp32 102 us = 3947 GB/s (93.5% of copy).
#include "common/elementwise.cuh"
#include "common/row_span.cuh"
#include "common/vec.cuh"
#include "scale_add.h"

namespace {{python_name}}_cuda {
namespace {

using namespace kernels_common;

// Rows the flat buffer is walked in: any length works; 2^20 keeps a row's
// element index an int and the last, shorter row small.
constexpr int64_t kRowElements = int64_t{1} << 20;

// No __restrict__: out may alias x or y (each element is read before it is
// written, by the same thread).
template <typename T>
struct ScaleAddOp {
  T* out;
  const T* x;
  const T* y;
  float alpha;

  template <int V, bool kSplit>
  __device__ __forceinline__ void Vector(int64_t row, const RowSpan& span, int idx) const {
    const int64_t start = row * kRowElements;
    const Vec<T, V> a = *BodyVector<V, kSplit>(x + start, span, idx);
    const Vec<T, V> b = *BodyVector<V, kSplit>(y + start, span, idx);
    Vec<T, V> c;
#pragma unroll
    for (int i = 0; i < V; ++i) c.Set(i, fmaf(a.Get(i), alpha, b.Get(i)));
    *BodyVector<V, kSplit>(out + start, span, idx) = c;
  }

  __device__ __forceinline__ void Element(int64_t row, int i) const {
    const int64_t k = row * kRowElements + i;
    out[k] = FromFloat<T>(fmaf(ToFloat(x[k]), alpha, ToFloat(y[k])));
  }
};

// out = x * alpha + y over `rows` rows of `cols` elements, element `offset`
// on.
cudaError_t LaunchRows(void* out, const void* x, const void* y, float alpha, DType dtype,
                       int64_t offset, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t skip = offset * DTypeSize(dtype);
  void* o = static_cast<char*>(out) + skip;
  const void* a = static_cast<const char*>(x) + skip;
  const void* b = static_cast<const char*>(y) + skip;
  return LaunchElementwise(
      dtype, rows, cols, stream,
      [&](auto tt) {
        using T = typename decltype(tt)::type;
        return ScaleAddOp<T>{static_cast<T*>(o), static_cast<const T*>(a),
                             static_cast<const T*>(b), alpha};
      },
      RowTensor{o, kRowElements}, RowTensor{a, kRowElements}, RowTensor{b, kRowElements});
}

}  // namespace

cudaError_t LaunchScaleAdd(void* out, const void* x, const void* y, float alpha, int64_t n,
                           DType dtype, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  const int64_t full_rows = n / kRowElements;
  const int64_t rest = n % kRowElements;
  if (full_rows > 0) {
    const cudaError_t e =
        LaunchRows(out, x, y, alpha, dtype, 0, full_rows, kRowElements, stream);
    if (e != cudaSuccess) return e;
  }
  if (rest == 0) return cudaSuccess;
  return LaunchRows(out, x, y, alpha, dtype, full_rows * kRowElements, 1, rest, stream);
}

}  // namespace {{python_name}}_cuda
