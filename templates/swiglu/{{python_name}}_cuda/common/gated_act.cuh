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

// Each activation's Apply<T> computes in float32 for an output of dtype T,
// without branches, so the compiler interleaves a vector's V of them.

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
struct Silu {
  static constexpr int kUnitsPerStep = 1;
  static constexpr int kWaves = kElementwiseWaves;
  template <typename T>
  __device__ __forceinline__ static float Apply(float x) {
    return FastDivide(x, 1.f + __expf(-x));
  }
};

// gelu(x) = x * Phi(x), Phi(x) = erfc(-x / sqrt(2)) / 2: F.gelu(approximate="none").
// erfc(z) = t e^(-z^2 + P(t)), t = 2 / (2 + z), z >= 0, P of degree 9: the
// Chebyshev fit of Numerical Recipes' erfcc, fractional error < 1.2e-7 in
// exact arithmetic, so h = Phi(-|x|) keeps its relative accuracy in the
// negative tail, where 1 + erf cancels, and Phi(x) = 1 - h for x >= 0. In
// float32 (u = t / 2 = 1 / (2 + z), P and the exponent in base 2 so one
// ex2.approx serves; both approx instructions flush subnormals) the
// measured relative error of gelu is <= 7.6e-7 for x >= -3, <= 1.9e-6 down
// to -6 and <= 8.2e-6 beyond, where |gelu| < 1e-8, under every atol (4M
// points against float64 erfc). 19 PTX instructions a value (2 of them
// MUFU), where 1 + erff took 28 (both its polynomials, picked by selects)
// and a test for the tail, whose values needed erfcf: at 12288x8192 bf16
// (H200, 2026-12-03) that ran at 82% of copy bandwidth, compute-bound; this
// form at 97.8%, 1.13x torch.compile (results/h200-2026-12-03/run-1915).
struct GeluErf {
  static constexpr int kUnitsPerStep = 1;
  static constexpr int kWaves = kElementwiseWaves;
  static constexpr float kInvSqrt2 = 0.70710678118654752f;
  static constexpr float kLog2e = 1.4426950408889634f;

  __device__ __forceinline__ static float ApproxReciprocal(float y) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
    return r;
  }
  __device__ __forceinline__ static float ApproxExp2(float y) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
    return r;
  }

  // +-inf and NaN give what x / 2 * (1 + erf(x / sqrt(2))) gives: inf, NaN, NaN.
  template <typename T>
  __device__ __forceinline__ static float Apply(float x) {
    const float ax = fabsf(x);
    const float u = ApproxReciprocal(2.f + ax * kInvSqrt2);
    // P(t) log2(e) in powers of u: coefficient k is c_k 2^k log2(e).
    float p = fmaf(126.21686f, u, -303.64542f);
    p = fmaf(p, u, 274.87674f);
    p = fmaf(p, u, -104.81620f);
    p = fmaf(p, u, 12.874290f);
    p = fmaf(p, u, -4.3001099f);
    p = fmaf(p, u, 1.1170404f);
    p = fmaf(p, u, 2.1588025f);
    p = fmaf(p, u, 2.8854585f);
    p = fmaf(p, u, -1.8257482f);
    // -z^2 log2(e) + P, z^2 = x^2 / 2 in one rounding.
    const float h = u * ApproxExp2(fmaf(-0.5f * kLog2e * ax, ax, p));
    return x * (x < 0.f ? h : 1.f - h);
  }
};

// gelu(x) ~ x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))):
// F.gelu(approximate="tanh"), as x / (1 + e^(-2 inner)), the same value
// without the cancellation of 1 + tanh near -1 (negative x). The limits are
// exact: e^-2inner = inf (x^3 overflowing included) gives -0, 0 gives x.
// __expf as in Silu: its error grows with |2 inner| only where the output
// is already below the fp32 atol.
struct GeluTanh {
  static constexpr int kUnitsPerStep = 1;
  static constexpr int kWaves = kElementwiseWaves;
  template <typename T>
  __device__ __forceinline__ static float Apply(float x) {
    const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    return FastDivide(x, 1.f + __expf(-2.f * inner));
  }
};

// out[r, j] = Act(gate[r, j]) * up[r, j], rows `*_stride` elements apart;
// kEvictFirst: gate and up read evict-first (vec.cuh; launch.cuh's
// EvictReadsFirstPays picks it per launch, EVICT_READS_FIRST_RULE=0 never).
template <typename T, typename Act, bool kEvictFirst>
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
    return {LoadReadOnce<kEvictFirst>(BodyVector<V, kSplit>(gate + row * gate_stride, span, idx)),
            LoadReadOnce<kEvictFirst>(BodyVector<V, kSplit>(up + row * up_stride, span, idx))};
  }

  template <int V, bool kSplit>
  __device__ __forceinline__ void Store(int64_t row, const RowSpan& span, int idx,
                                        const Loaded<V>& in) const {
    float a[V];
#pragma unroll
    for (int i = 0; i < V; ++i) a[i] = Act::template Apply<T>(in.gate.Get(i));
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
    const float a = Act::template Apply<T>(ToFloat(gate[row * gate_stride + i]));
    out[row * out_stride + i] = FromFloat<T>(a * ToFloat(up[row * up_stride + i]));
  }
};

// out = Act(gate) * up over `rows` rows of d elements of dtype. Returns
// LaunchElementwise's status.
template <typename Act>
cudaError_t LaunchGated(void* out, const void* gate, const void* up, DType dtype,
                        int64_t rows, int64_t d, int64_t out_stride, int64_t gate_stride,
                        int64_t up_stride, cudaStream_t stream) {
  const auto launch = [&](auto evict_first) {
    const auto make_op = [&](auto tt) {
      using T = typename decltype(tt)::type;
      return GatedOp<T, Act, decltype(evict_first)::value>{
          static_cast<T*>(out), static_cast<const T*>(gate), static_cast<const T*>(up),
          out_stride, gate_stride, up_stride};
    };
    return LaunchElementwise(dtype, rows, d, stream, make_op, RowTensor{out, out_stride},
                             RowTensor{gate, gate_stride}, RowTensor{up, up_stride});
  };
  const int64_t out_bytes = rows * d * DTypeSize(dtype);
  if (EvictReadsFirstPays(2 * out_bytes, out_bytes)) return launch(std::true_type{});
  return launch(std::bool_constant<VEC_READ_ONCE_EVICT_FIRST>{});  // the knob: hints everywhere
}

}  // namespace kernels_common
