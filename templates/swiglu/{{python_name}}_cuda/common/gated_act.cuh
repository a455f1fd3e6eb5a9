// Gated activations, out = act(gate) * up, shared by the swiglu and geglu
// templates: the activations (SiLU, GELU with erf, GELU's tanh
// approximation) in float32, and the elementwise op over rows of d gate, d
// up and d output elements (elementwise.cuh walks the rows and picks the
// vector access). Which half of a [..., 2d] input is the gate is the
// caller's choice of pointers: the same op serves one [..., 2d] tensor
// (gate and up rows 2d apart) and two [..., d] tensors.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "dtype.h"
#include "elementwise.cuh"
#include "row_span.cuh"
#include "vec.cuh"

namespace kernels_common {

// Each activation's Apply<T> computes in float32 for an output of dtype T;
// Refine<T, V> may then redo, for a vector of V, the rare values Apply's
// fast form gets wrong (GeluErf's tail; the others have none). Keeping the
// rare path out of Apply leaves the V computations free of branches, so the
// compiler interleaves them.

// No values to redo.
struct NoRefine {
  template <typename T, int V>
  __device__ __forceinline__ static void Refine(const float (&)[V], float (&)[V]) {}
};

// a / b within 2 ulp over the full range (div.full.f32): a reciprocal and a
// multiply with operand scaling, where `/` is the IEEE division
// (div.rn.f32), a dozen instructions and a slow-path branch for each of a
// vector's V values. b = inf gives +-0, as `/` does (the callers' divisors
// are >= 1); subnormal results are kept.
__device__ __forceinline__ float FastDivide(float a, float b) {
  float q;
  asm("div.full.f32 %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));
  return q;
}

// silu(x) = x * sigmoid(x) = x / (1 + e^-x). __expf: ~2 + 1.2|x| ulp, inside
// the fp32 tolerance; e^-x = inf for x < -88 gives -0, the limit.
// kUnitsPerStep and kWaves (elementwise.cuh): vectors a thread loads before
// it stores one, and the grid cap; memory-bound activations take one vector
// and the library's cap.
struct Silu : NoRefine {
  static constexpr int kUnitsPerStep = 1;
  static constexpr int kWaves = kElementwiseWaves;
  template <typename T>
  __device__ __forceinline__ static float Apply(float x) {
    return FastDivide(x, 1.f + __expf(-x));
  }
};

// gelu(x) = x / 2 * (1 + erf(x / sqrt(2))): F.gelu(approximate="none").
// 1 + erf(t) cancels in the negative tail: its absolute error of ~6e-8 is a
// relative one of 6e-8 / (1 + erf(t)) (at x = -5 one significant digit of
// 5.7e-7 is left, far past the fp32 rtol once up scales it). Past kTail,
// where that would exceed a tenth of the output's rtol, Refine redoes the
// value with erfc(-t): full precision, about twice the instructions. kTail
// is t = -1.5 for fp32 (error <= 1.8e-6) and -2.5 for 16-bit outputs
// (<= 1.5e-4). Random inputs rarely reach it, so Refine's branch is seldom
// taken. geglu at 12288x8192 bf16 (H200, 2026-12-02): erfc for every x < 0
// 41% of copy bandwidth; a branch per element (erfc past kTail inside Apply,
// which keeps the compiler from interleaving the V erfs) 72%; this 76%.
// Two vectors a step in a grid-stride loop of 2 waves: erf's math, not
// memory, sets the time. 12288x8192 bf16 on the H200, 2026-12-03: one vector
// a step, 2 waves 187 us; two vectors, 2 waves 172 us; two vectors, one
// step a thread (64 waves) 203 us.
struct GeluErf {
  static constexpr int kUnitsPerStep = 2;
  static constexpr int kWaves = 2;
  template <typename T>
  static constexpr float kTail = sizeof(T) == 4 ? -1.5f : -2.5f;
  static constexpr float kInvSqrt2 = 0.70710678118654752f;

  template <typename T>
  __device__ __forceinline__ static float Apply(float x) {
    return 0.5f * x * (1.f + erff(x * kInvSqrt2));
  }

  template <typename T, int V>
  __device__ __forceinline__ static void Refine(const float (&x)[V], float (&y)[V]) {
    bool any = false;
#pragma unroll
    for (int i = 0; i < V; ++i) any |= x[i] * kInvSqrt2 < kTail<T>;
    if (!any) return;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const float t = x[i] * kInvSqrt2;
      if (t < kTail<T>) y[i] = 0.5f * x[i] * erfcf(-t);
    }
  }
};

// gelu(x) ~ x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))):
// F.gelu(approximate="tanh"), as x / (1 + e^(-2 inner)), the same value
// without the cancellation of 1 + tanh near -1 (negative x). The limits are
// exact: e^-2inner = inf (x^3 overflowing included) gives -0, 0 gives x.
// __expf as in Silu: its error grows with |2 inner| only where the output
// is already below the fp32 atol.
struct GeluTanh : NoRefine {
  static constexpr int kUnitsPerStep = 1;
  static constexpr int kWaves = kElementwiseWaves;
  template <typename T>
  __device__ __forceinline__ static float Apply(float x) {
    const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    return FastDivide(x, 1.f + __expf(-2.f * inner));
  }
};

// out[r, j] = Act(gate[r, j]) * up[r, j], rows `*_stride` elements apart.
template <typename T, typename Act>
struct GatedOp {
  static constexpr int kUnitsPerStep = Act::kUnitsPerStep;
  static constexpr int kWaves = Act::kWaves;
  T* out;
  const T* gate;
  const T* up;
  int64_t out_stride;
  int64_t gate_stride;
  int64_t up_stride;

  // A vector's inputs: elementwise.cuh's optional Load/Store split.
  template <int V>
  struct Loaded {
    Vec<T, V> gate;
    Vec<T, V> up;
  };

  template <int V, bool kSplit>
  __device__ __forceinline__ Loaded<V> Load(int64_t row, const RowSpan& span, int idx) const {
    return {*BodyVector<V, kSplit>(gate + row * gate_stride, span, idx),
            *BodyVector<V, kSplit>(up + row * up_stride, span, idx)};
  }

  template <int V, bool kSplit>
  __device__ __forceinline__ void Store(int64_t row, const RowSpan& span, int idx,
                                        const Loaded<V>& in) const {
    float x[V], a[V];
#pragma unroll
    for (int i = 0; i < V; ++i) {
      x[i] = in.gate.Get(i);
      a[i] = Act::template Apply<T>(x[i]);
    }
    Act::template Refine<T, V>(x, a);
    Vec<T, V> o;
#pragma unroll
    for (int i = 0; i < V; ++i) o.Set(i, a[i] * in.up.Get(i));
    *BodyVector<V, kSplit>(out + row * out_stride, span, idx) = o;
  }

  template <int V, bool kSplit>
  __device__ __forceinline__ void Vector(int64_t row, const RowSpan& span, int idx) const {
    Store<V, kSplit>(row, span, idx, Load<V, kSplit>(row, span, idx));
  }

  __device__ __forceinline__ void Element(int64_t row, int i) const {
    const float g[1] = {ToFloat(gate[row * gate_stride + i])};
    float a[1] = {Act::template Apply<T>(g[0])};
    Act::template Refine<T, 1>(g, a);
    out[row * out_stride + i] = FromFloat<T>(a[0] * ToFloat(up[row * up_stride + i]));
  }
};

// out = Act(gate) * up over `rows` rows of d elements of dtype. Returns
// LaunchElementwise's status.
template <typename Act>
cudaError_t LaunchGated(void* out, const void* gate, const void* up, DType dtype,
                        int64_t rows, int64_t d, int64_t out_stride, int64_t gate_stride,
                        int64_t up_stride, cudaStream_t stream) {
  const auto make_op = [&](auto tt) {
    using T = typename decltype(tt)::type;
    return GatedOp<T, Act>{static_cast<T*>(out), static_cast<const T*>(gate),
                           static_cast<const T*>(up), out_stride, gate_stride, up_stride};
  };
  return LaunchElementwise(dtype, rows, d, stream, make_op, RowTensor{out, out_stride},
                           RowTensor{gate, gate_stride}, RowTensor{up, up_stride});
}

}  // namespace kernels_common
