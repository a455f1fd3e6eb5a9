// The rope kernels' three sources of angles. Each gives a chunk's angles
// as a Held value (Get): Cos(k) and Sin(k) of element k, the low vector's
// V, then the high vector's.
//   TableAngles     cos / sin tensors read at each element's position (a
//                   table may differ per head: head_stride != 0).
//   PositionAngles  integer positions: angle_i = pos * theta^(-2i / d).
//   LtxVideoAngles  LTX-Video's frame / height / width rotary split over the
//                   q heads' concatenated channels (rope.cu has the formula).
// Computed angles are taken in turns in float64 (turns = angle / 2 pi, the
// integer part dropped), then sincospif in float32: positions of 10^5 and
// LTX's angles of 10^4 rad keep float32 accuracy, which an fp32 angle (one
// ulp of 16384 is 2e-3 rad) would not. The float64 "turns per unit" of
// each frequency are computed once per block into shared memory, before
// the wait for the previous kernel (no global memory is touched there).
#pragma once

#include <cstdint>

#include "vec.cuh"

namespace rope_kernels {

using kernels_common::Vec;

// Computed angles of a chunk, one per rotation pair (pair cV + p): element
// k of the chunk (the low vector's V, then the high vector's) takes pair
// k / 2 (interleaved) or k % V (half-split).
template <int V, bool kInterleaved>
struct PairAngles {
  float c[V];
  float s[V];
  __device__ __forceinline__ float Cos(int k) const { return c[kInterleaved ? k / 2 : k % V]; }
  __device__ __forceinline__ float Sin(int k) const { return s[kInterleaved ? k / 2 : k % V]; }
  __device__ __forceinline__ void Hide() {}  // floats already: nothing to hoist
};

// The rotation pair of an interleaved chunk's elements 2p and 2p + 1: the low
// vector holds elements lo .. lo + V - 1 of the head, the high one hi .. hi +
// V - 1 (hi = lo + V, or the same place in the head's second half).
template <int V>
__device__ __forceinline__ int InterleavedPair(int p, int lo, int hi) {
  return (2 * p < V ? lo + 2 * p : hi + 2 * p - V) / 2;
}

// cos and sin of 2 pi * turns, reduced in float64 first.
__device__ __forceinline__ void SinCosTurns(double turns, float* s, float* c) {
  const double frac = turns - rint(turns);  // [-0.5, 0.5]
  sincospif(static_cast<float>(2.0 * frac), s, c);
}

// Each source's kTurns: the float64 table its Prepare fills (shared
// memory), sized for the largest supported head_dim / channel count;
// kComputed: whether Get computes the angles (rather than reading them).
template <typename W>
struct TableAngles {
  static constexpr int kTurns = 1;  // unused
  static constexpr bool kComputed = false;  // read from memory
  const W* cos;
  const W* sin;
  int64_t batch_stride;
  int64_t seq_stride;
  int64_t head_stride;  // 0: one table for every head

  __device__ __forceinline__ void Prepare(double*) const {}
  __device__ __forceinline__ bool PerHead() const { return head_stride != 0; }

  // The cos and sin of elements lo .. lo + V - 1 and hi .. hi + V - 1, as
  // read (W): held in their own dtype and converted where each is used, so
  // 16-bit tables take half the registers of floats (ptxas, sm_90a).
  template <int V>
  struct Chunk {
    Vec<W, V> cos_lo, cos_hi, sin_lo, sin_hi;
    // Element k of the chunk: the low vector's V, then the high vector's.
    __device__ __forceinline__ float Cos(int k) const {
      return k < V ? cos_lo.Get(k) : cos_hi.Get(k - V);
    }
    __device__ __forceinline__ float Sin(int k) const {
      return k < V ? sin_lo.Get(k) : sin_hi.Get(k - V);
    }
    // Hides the values from the compiler at the top of each slot, so it
    // cannot convert them once, before the loop, and hold 4V floats: 72 ->
    // 58 registers (bf16 tables, half-split; ptxas, sm_90a, CUDA 13.0).
    __device__ __forceinline__ void Hide() {
      if constexpr (sizeof(Vec<W, V>) % 4 == 0) {
        auto* words = reinterpret_cast<uint32_t*>(this);
#pragma unroll
        for (int i = 0; i < static_cast<int>(sizeof(*this) / 4); ++i) {
          asm volatile("" : "+r"(words[i]));
        }
      }
    }
  };
  template <int V, bool kInterleaved>
  using Held = Chunk<V>;

  // Aligned: the launch picked V so every table row and chunk is (PlanRope).
  template <int V>
  __device__ __forceinline__ Chunk<V> Load(int64_t b, int64_t s, int h, int lo, int hi) const {
    const int64_t row = b * batch_stride + s * seq_stride + h * head_stride;
    const auto at = [](const W* table, int64_t offset) {
      return *reinterpret_cast<const Vec<W, V>*>(table + offset);
    };
    return {at(cos, row + lo), at(cos, row + hi), at(sin, row + lo), at(sin, row + hi)};
  }

  template <int V, bool kInterleaved>
  __device__ __forceinline__ Chunk<V> Get(int64_t b, int64_t s, int h, int lo, int hi,
                                          const double*) const {
    return Load<V>(b, s, h, lo, hi);
  }
};

// angle_i = pos * theta^(-2i / d), i < d / 2 (Llama / Qwen3 default rope).
struct PositionAngles {
  static constexpr int kTurns = 512;  // head_dim <= 1024
  static constexpr bool kComputed = true;
  const int64_t* positions;
  int64_t batch_stride;  // 0: one position row for every batch entry
  int half;
  double log2_theta;

  __device__ __forceinline__ bool PerHead() const { return false; }

  // turns per unit of position: theta^(-2i / d) / (2 pi).
  __device__ __forceinline__ void Prepare(double* turns) const {
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
      turns[i] = exp2(-(2.0 * i / (2.0 * half)) * log2_theta) * (0.5 / 3.141592653589793238);
    }
  }

  template <int V, bool kInterleaved>
  using Held = PairAngles<V, kInterleaved>;

  template <int V, bool kInterleaved>
  __device__ __forceinline__ PairAngles<V, kInterleaved> Get(int64_t b, int64_t s, int, int lo,
                                                             int hi, const double* turns) const {
    const double pos = static_cast<double>(positions[b * batch_stride + s]);
    PairAngles<V, kInterleaved> out;
#pragma unroll
    for (int p = 0; p < V; ++p) {
      const int pair = kInterleaved ? InterleavedPair<V>(p, lo, hi) : lo + p;
      SinCosTurns(pos * turns[pair], &out.s[p], &out.c[p]);
    }
    return out;
  }
};

// LTX-Video (diffusers LTXVideoRotaryPosEmbed): interleaved pairs over the
// q heads' channels, pair P = h * d/2 + i. The first pad_pairs pairs keep
// cos 1, sin 0; pair pad_pairs + 3j + a rotates by
//   theta^(j / (n - 1)) * pi / 2 * (2 * coord_a * scale_a - 1),
// n = channels / 6 frequencies, coord_a the token's frame / row / column.
struct LtxVideoAngles {
  static constexpr int kTurns = 1024;  // heads * head_dim <= 6144
  static constexpr bool kComputed = true;
  int height;
  int width;
  int half;       // d / 2
  int freqs;      // n
  int pad_pairs;  // (channels % 6) / 2
  double scale[3];
  double log2_theta;

  __device__ __forceinline__ bool PerHead() const { return true; }

  // turns per unit of (2 * coord * scale - 1): theta^(j / (n - 1)) / 4.
  __device__ __forceinline__ void Prepare(double* turns) const {
    for (int j = threadIdx.x; j < freqs; j += blockDim.x) {
      const double x = freqs > 1 ? static_cast<double>(j) / (freqs - 1) : 0.0;
      turns[j] = exp2(x * log2_theta) * 0.25;
    }
  }

  template <int V, bool kInterleaved>
  using Held = PairAngles<V, kInterleaved>;

  template <int V, bool kInterleaved>
  __device__ __forceinline__ PairAngles<V, kInterleaved> Get(int64_t, int64_t s, int h, int lo,
                                                             int hi, const double* turns) const {
    static_assert(kInterleaved, "LTX-Video pairs channels 2i and 2i + 1");
    const int64_t plane = static_cast<int64_t>(height) * width;
    const double coord[3] = {static_cast<double>(s / plane), static_cast<double>(s % plane / width),
                             static_cast<double>(s % width)};
    double unit[3];
#pragma unroll
    for (int a = 0; a < 3; ++a) unit[a] = 2.0 * (coord[a] * scale[a]) - 1.0;
    PairAngles<V, true> out;
#pragma unroll
    for (int p = 0; p < V; ++p) {
      const int q = h * half + InterleavedPair<V>(p, lo, hi) - pad_pairs;  // past the padding
      if (q < 0) {
        out.c[p] = 1.f;
        out.s[p] = 0.f;
      } else {
        const int a = q % 3;
        const double u = a == 0 ? unit[0] : a == 1 ? unit[1] : unit[2];
        SinCosTurns(turns[q / 3] * u, &out.s[p], &out.c[p]);
      }
    }
    return out;
  }
};

}  // namespace rope_kernels
