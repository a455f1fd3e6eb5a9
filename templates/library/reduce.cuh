// Reductions across the threads that share one row: a group of kGroup lanes
// inside a warp (4-32 lanes per row) or the whole block (kGroup ==
// kWholeBlock, the RowPlan's shape). Three kinds of value:
//   float    with Sum or Max
//   MaxSum   the online softmax pair (running max, sum of exp(x - max))
//   Welford  count, mean and sum of squared deviations (LayerNorm's variance
//            without the cancellation of E[x^2] - E[x]^2)
//
// The barrier contract, the same for every reduction here:
// - every lane of the warp calls it (full-mask shuffles), so kernels keep
//   out-of-range rows alive with predicates (and an identity value) instead
//   of returning early;
// - a block reduction is called by every thread of the block (blockDim.x a
//   multiple of 32) and passes exactly one __syncthreads; its `scratch` (32
//   values of the reduced type in shared memory) must not be written again
//   until another barrier has passed: two block reductions in a row take
//   two scratch arrays (or a __syncthreads between them);
// - every participating thread gets the full result.
//
// Each kind has its per-thread side too: MaxSumOf / AddValues fold a
// thread's values into a MaxSum, WelfordAdd one value into a Welford. A new
// kind of value (say (max, sum, target logit) in one pass) is a struct, an
// op with a static Identity() and operator(), and a ShuffleXor overload in
// namespace kernels_common; GroupReduce, BlockReduce and RowReduce then take
// it unchanged.
#pragma once

#include <cmath>

#include "row_plan.h"  // kWarpSize, kWholeBlock: the group sizes plans use

namespace kernels_common {

// Online softmax state of a set of values: their max and the sum of
// exp(value - max). The empty set is {-inf, 0}.
// exp(x) as one MUFU.EX2 (ex2.approx.ftz of x * log2(e)): __expf is the
// same approximation without .ftz, which nvcc (without -use_fast_math)
// wraps in three more instructions to scale denormal results. Here results
// below 2^-126 flush to 0: an absolute error under 1.2e-38. Softmax takes two
// exps per element, so on large rows those instructions cost issue slots
// the loads need.
__device__ __forceinline__ float FastExp(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}

struct MaxSum {
  float max;
  float sum;
};

// Welford state: count, mean and M2 (sum of squared deviations from the
// mean); variance = m2 / count. The empty set is {0, 0, 0}.
struct Welford {
  float count;
  float mean;
  float m2;
};

struct Sum {
  __device__ __forceinline__ static float Identity() { return 0.f; }
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

struct Max {
  __device__ __forceinline__ static float Identity() { return -INFINITY; }
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

struct MergeMaxSum {
  __device__ __forceinline__ static MaxSum Identity() { return {-INFINITY, 0.f}; }
  __device__ __forceinline__ MaxSum operator()(MaxSum a, MaxSum b) const {
    const float m = fmaxf(a.max, b.max);
    if (m == -INFINITY) return {m, 0.f};  // both empty (or all -inf): no exp(-inf + inf)
    return {m, a.sum * FastExp(a.max - m) + b.sum * FastExp(b.max - m)};
  }
};

struct MergeWelford {
  __device__ __forceinline__ static Welford Identity() { return {0.f, 0.f, 0.f}; }
  __device__ __forceinline__ Welford operator()(Welford a, Welford b) const {
    const float n = a.count + b.count;
    if (n == 0.f) return a;
    const float delta = b.mean - a.mean;
    const float share = b.count / n;
    return {n, a.mean + delta * share, a.m2 + b.m2 + delta * delta * a.count * share};
  }
};

// The (max, sum) of values seen all at once: the max first, then one exp
// per value. An empty or all -inf set is {-inf, 0}.
template <typename ForEachValue>
__device__ __forceinline__ MaxSum MaxSumOf(ForEachValue&& for_each) {
  float max = -INFINITY;
  for_each([&](float v) { max = fmaxf(max, v); });
  float sum = 0.f;
  if (max != -INFINITY) for_each([&](float v) { sum += FastExp(v - max); });
  return {max, sum};
}

// The state after N more values (a vector read in a loop): the sum is
// rescaled once to the new max.
template <int N>
__device__ __forceinline__ MaxSum AddValues(MaxSum s, const float (&v)[N]) {
  float max = s.max;
#pragma unroll
  for (int i = 0; i < N; ++i) max = fmaxf(max, v[i]);
  if (max == -INFINITY) return s;  // nothing but -inf so far
  float sum = s.sum * FastExp(s.max - max);
#pragma unroll
  for (int i = 0; i < N; ++i) sum += FastExp(v[i] - max);
  return {max, sum};
}

// One value x appended to a Welford state (the per-thread accumulation).
__device__ __forceinline__ Welford WelfordAdd(Welford s, float x) {
  const float n = s.count + 1.f;
  const float delta = x - s.mean;
  const float mean = s.mean + delta / n;
  return {n, mean, s.m2 + delta * (x - mean)};
}

__device__ __forceinline__ float ShuffleXor(float v, int offset) {
  return __shfl_xor_sync(0xffffffffu, v, offset);
}
__device__ __forceinline__ MaxSum ShuffleXor(MaxSum v, int offset) {
  return {ShuffleXor(v.max, offset), ShuffleXor(v.sum, offset)};
}
__device__ __forceinline__ Welford ShuffleXor(Welford v, int offset) {
  return {ShuffleXor(v.count, offset), ShuffleXor(v.mean, offset), ShuffleXor(v.m2, offset)};
}

// Butterfly reduction over aligned groups of kGroup lanes; each lane gets
// its group's result.
template <int kGroup, typename T, typename Op>
__device__ __forceinline__ T GroupReduce(T v, Op op) {
  static_assert(kGroup >= 1 && kGroup <= kWarpSize && (kGroup & (kGroup - 1)) == 0,
                "kGroup must be a power of two <= 32");
#pragma unroll
  for (int offset = kGroup / 2; offset > 0; offset /= 2) v = op(v, ShuffleXor(v, offset));
  return v;
}

// Block-wide reduction, returned to every thread: each warp reduces, writes
// one partial, one __syncthreads, then every warp re-reduces the partials
// itself (no second barrier for a broadcast).
template <typename T, typename Op>
__device__ __forceinline__ T BlockReduce(T v, Op op, T* scratch) {
  v = GroupReduce<kWarpSize>(v, op);
  const int warp = threadIdx.x / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / kWarpSize;
  v = lane < warps ? scratch[lane] : Op::Identity();
  return GroupReduce<kWarpSize>(v, op);
}

// The one entry point kernels call: kGroup lanes per row, or kWholeBlock.
// `scratch` is used only by the block path.
template <int kGroup, typename T, typename Op>
__device__ __forceinline__ T RowReduce(T v, Op op, T* scratch) {
  if constexpr (kGroup == kWholeBlock) {
    return BlockReduce(v, op, scratch);
  } else {
    return GroupReduce<kGroup>(v, op);
  }
}

// The sums the norm kernels use, by name.
template <int kGroup>
__device__ __forceinline__ float GroupSum(float v) {
  return GroupReduce<kGroup>(v, Sum{});
}
__device__ __forceinline__ float BlockSum(float v, float* scratch) {
  return BlockReduce(v, Sum{}, scratch);
}
template <int kGroup>
__device__ __forceinline__ float RowSum(float v, float* scratch) {
  return RowReduce<kGroup>(v, Sum{}, scratch);
}

}  // namespace kernels_common
