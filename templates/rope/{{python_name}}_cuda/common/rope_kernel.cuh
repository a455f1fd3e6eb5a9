// The rotary-embedding kernel and its three sources of angles.
//
// Work split. A thread owns one (token, chunk) of every head it visits: a
// chunk is V rotation pairs held as two Vec<T, V> (half-split: elements
// [cV, cV + V) and the same + d/2; interleaved: elements [2cV, 2cV + 2V)).
// Heads are "slots" 0 .. max(q heads, k heads) - 1; slot h rotates q head h
// and k head h where they exist, so one angle serves both. A thread visits
// slots g, g + groups, ... one after the other, with one angle computation
// for all of them unless the angles differ per head (per-head tables,
// LTX-Video). One head's chunk is held at a time, so registers stay at 48
// (computed angles) to 76 (half-split tables) with 16-byte vectors (ptxas,
// sm_90a): 3-5 blocks per SM.
//
// Angle sources (Get fills the cos and sin of the chunk's 2V elements, in
// the order of the two vectors):
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

#include "overlap.cuh"
#include "row_span.cuh"
#include "vec.cuh"

namespace rope_kernels {

using kernels_common::BodyVector;
using kernels_common::LoadWeights;
using kernels_common::RowSpan;
using kernels_common::Vec;

constexpr int kRopeThreads = 256;

// q or k: heads of head_dim contiguous elements, at any batch / token /
// head strides (elements).
template <typename T>
struct HeadRows {
  T* ptr;
  int64_t batch_stride;
  int64_t seq_stride;
  int64_t head_stride;
  int heads;

  __device__ __forceinline__ T* Row(int64_t b, int64_t s, int h) const {
    return ptr + b * batch_stride + s * seq_stride + h * head_stride;
  }
};

struct RopeGrid {
  int64_t seq;      // tokens per batch entry
  int64_t threads;  // tokens * groups * chunks
  int chunks;       // d / 2 / V
  int groups;       // slot groups: a thread takes slots g, g + groups, ...
  int slots;        // max(q heads, k heads)
  int half;         // d / 2: rotation pairs per head
};

// Expands V per-pair angles (pair cV + p) into the 2V elements of a chunk.
template <int V, bool kInterleaved>
__device__ __forceinline__ void ExpandPairs(const float (&pc)[V], const float (&ps)[V],
                                            float (&c)[2 * V], float (&s)[2 * V]) {
#pragma unroll
  for (int k = 0; k < 2 * V; ++k) {
    const int p = kInterleaved ? k / 2 : k % V;
    c[k] = pc[p];
    s[k] = ps[p];
  }
}

// cos and sin of 2 pi * turns, reduced in float64 first.
__device__ __forceinline__ void SinCosTurns(double turns, float* s, float* c) {
  const double frac = turns - rint(turns);  // [-0.5, 0.5]
  sincospif(static_cast<float>(2.0 * frac), s, c);
}

// Each source's kTurns: the float64 table its Prepare fills (shared
// memory), sized for the largest supported head_dim / channel count.
template <typename W>
struct TableAngles {
  static constexpr int kTurns = 1;  // unused
  const W* cos;
  const W* sin;
  int64_t batch_stride;
  int64_t seq_stride;
  int64_t head_stride;  // 0: one table for every head

  __device__ __forceinline__ void Prepare(double*) const {}
  __device__ __forceinline__ bool PerHead() const { return head_stride != 0; }

  // The cos and sin of elements lo .. lo + V - 1 and hi .. hi + V - 1, as
  // read (W), for a kernel that loads them long before it uses them and
  // converts each value where it is used (fewer registers for 16-bit tables).
  template <int V>
  struct Chunk {
    Vec<W, V> cos_lo, cos_hi, sin_lo, sin_hi;
  };

  // Aligned: the launch picked V so every table row and chunk is (PlanRope).
  template <int V>
  __device__ __forceinline__ Chunk<V> Load(int64_t b, int64_t s, int h, int lo, int hi) const {
    const int64_t row = b * batch_stride + s * seq_stride + h * head_stride;
    const auto at = [](const W* table, int64_t offset) {
      return *reinterpret_cast<const Vec<W, V>*>(table + offset);
    };
    return {at(cos, row + lo), at(cos, row + hi), at(sin, row + lo), at(sin, row + hi)};
  }

  // As floats. Not through Load: converting its Chunk here made ptxas spill
  // 8 bytes in one rope kernel (fp16, 8-byte vectors, fp32 tables; CUDA 13.0).
  template <int V, bool kInterleaved>
  __device__ __forceinline__ void Get(int64_t b, int64_t s, int h, int lo, int hi, const double*,
                                      float (&c)[2 * V], float (&sn)[2 * V]) const {
    const int64_t row = b * batch_stride + s * seq_stride + h * head_stride;
    LoadChunk<V>(cos, row, lo, hi, c);
    LoadChunk<V>(sin, row, lo, hi, sn);
  }

  // Elements lo .. lo + V - 1 and hi .. hi + V - 1 of a table row, as floats.
  template <int V>
  __device__ __forceinline__ static void LoadChunk(const W* table, int64_t row, int lo, int hi,
                                                   float (&out)[2 * V]) {
    float part[V];
    LoadWeights<W, V>(table, row + lo, part);
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = part[i];
    LoadWeights<W, V>(table, row + hi, part);
#pragma unroll
    for (int i = 0; i < V; ++i) out[V + i] = part[i];
  }
};

// angle_i = pos * theta^(-2i / d), i < d / 2 (Llama / Qwen3 default rope).
struct PositionAngles {
  static constexpr int kTurns = 512;  // head_dim <= 1024
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
  __device__ __forceinline__ void Get(int64_t b, int64_t s, int, int lo, int, const double* turns,
                                      float (&c)[2 * V], float (&sn)[2 * V]) const {
    const double pos = static_cast<double>(positions[b * batch_stride + s]);
    const int first = kInterleaved ? lo / 2 : lo;  // pair of element lo
    float pc[V], ps[V];
#pragma unroll
    for (int p = 0; p < V; ++p) SinCosTurns(pos * turns[first + p], &ps[p], &pc[p]);
    ExpandPairs<V, kInterleaved>(pc, ps, c, sn);
  }
};

// LTX-Video (diffusers LTXVideoRotaryPosEmbed): interleaved pairs over the
// q heads' channels, pair P = h * d/2 + i. The first pad_pairs pairs keep
// cos 1, sin 0; pair pad_pairs + 3j + a rotates by
//   theta^(j / (n - 1)) * pi / 2 * (2 * coord_a * scale_a - 1),
// n = channels / 6 frequencies, coord_a the token's frame / row / column.
struct LtxVideoAngles {
  static constexpr int kTurns = 1024;  // heads * head_dim <= 6144
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
  __device__ __forceinline__ void Get(int64_t, int64_t s, int h, int lo, int, const double* turns,
                                      float (&c)[2 * V], float (&sn)[2 * V]) const {
    static_assert(kInterleaved, "LTX-Video pairs channels 2i and 2i + 1");
    const int64_t plane = static_cast<int64_t>(height) * width;
    const double coord[3] = {static_cast<double>(s / plane), static_cast<double>(s % plane / width),
                             static_cast<double>(s % width)};
    double unit[3];
#pragma unroll
    for (int a = 0; a < 3; ++a) unit[a] = 2.0 * (coord[a] * scale[a]) - 1.0;
    const int first = h * half + lo / 2 - pad_pairs;  // pair past the padding
    float pc[V], ps[V];
#pragma unroll
    for (int p = 0; p < V; ++p) {
      const int q = first + p;
      if (q < 0) {
        pc[p] = 1.f;
        ps[p] = 0.f;
      } else {
        const int a = q % 3;
        const double u = a == 0 ? unit[0] : a == 1 ? unit[1] : unit[2];
        SinCosTurns(turns[q / 3] * u, &ps[p], &pc[p]);
      }
    }
    ExpandPairs<V, true>(pc, ps, c, sn);
  }
};

// One rotation pair (x1, x2) in fp32, each element with its own cos and
// sin: rotate(x) = (-x2, x1), so (x1 c1 - x2 s1, x2 c2 + x1 s2).
struct RotatedPair {
  float first;
  float second;
};
__device__ __forceinline__ RotatedPair RotatePair(float x1, float x2, float c1, float s1, float c2,
                                                  float s2) {
  return {x1 * c1 - x2 * s1, x2 * c2 + x1 * s2};
}

// The rotation of one chunk in fp32, pair by pair. x holds the low vector's
// V values, then the high vector's; pairs are (i, i + V) across the two
// vectors (half-split) or (2p, 2p + 1) (interleaved).
template <int V, bool kInterleaved>
__device__ __forceinline__ void RotateValues(const float (&x)[2 * V], const float (&c)[2 * V],
                                             const float (&s)[2 * V], float (&y)[2 * V]) {
#pragma unroll
  for (int p = 0; p < V; ++p) {
    const int a = kInterleaved ? 2 * p : p;
    const int b = kInterleaved ? 2 * p + 1 : p + V;
    const RotatedPair r = RotatePair(x[a], x[b], c[a], s[a], c[b], s[b]);
    y[a] = r.first;
    y[b] = r.second;
  }
}

// Rotates one chunk in registers, rounding once to T.
template <typename T, int V, bool kInterleaved>
__device__ __forceinline__ void Rotate(Vec<T, V>& lo, Vec<T, V>& hi, const float (&c)[2 * V],
                                       const float (&s)[2 * V]) {
  float x[2 * V];
#pragma unroll
  for (int i = 0; i < V; ++i) {
    x[i] = lo.Get(i);
    x[V + i] = hi.Get(i);
  }
  float y[2 * V];
  RotateValues<V, kInterleaved>(x, c, s, y);
#pragma unroll
  for (int i = 0; i < V; ++i) {
    lo.Set(i, y[i]);
    hi.Set(i, y[V + i]);
  }
}

// Rotates head h's chunk of `rows` (if the tensor has head h) in place.
template <typename T, int V, bool kInterleaved>
__device__ __forceinline__ void RotateChunk(const HeadRows<T>& rows, int64_t b, int64_t s, int h,
                                            int lo_vec, int hi_vec, const float (&c)[2 * V],
                                            const float (&sn)[2 * V]) {
  if (h >= rows.heads) return;
  const RowSpan whole{0, 0, 0};
  T* row = rows.Row(b, s, h);
  Vec<T, V> lo = *BodyVector<V, false>(row, whole, lo_vec);
  Vec<T, V> hi = *BodyVector<V, false>(row, whole, hi_vec);
  Rotate<T, V, kInterleaved>(lo, hi, c, sn);
  *BodyVector<V, false>(row, whole, lo_vec) = lo;
  *BodyVector<V, false>(row, whole, hi_vec) = hi;
}

// Launch: kRopeThreads threads per block, grid.threads threads in all
// (token-major, then slot group, then chunk: neighbouring threads touch
// neighbouring vectors of a head). kMinBlocks: the blocks per SM
// __launch_bounds__ promises (0: none).
template <typename T, int V, bool kInterleaved, typename Angles, int kMinBlocks = 0>
__global__ void __launch_bounds__(kRopeThreads, kMinBlocks)
    RopeKernel(HeadRows<T> q, HeadRows<T> k, RopeGrid grid, Angles angles) {
  __shared__ double turns[Angles::kTurns];
  angles.Prepare(turns);  // shared memory only: before the wait
  __syncthreads();
  kernels_common::WaitForPreviousKernel();
  kernels_common::AllowNextKernelLaunch();
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= grid.threads) return;
  const int chunk = static_cast<int>(t % grid.chunks);
  const int64_t rest = t / grid.chunks;
  const int group = static_cast<int>(rest % grid.groups);
  const int64_t token = rest / grid.groups;
  const int64_t b = token / grid.seq;
  const int64_t s = token % grid.seq;
  // The chunk's two vectors in a head (vector indices; elements * V).
  const int lo_vec = kInterleaved ? 2 * chunk : chunk;
  const int hi_vec = kInterleaved ? 2 * chunk + 1 : grid.chunks + chunk;

  float c[2 * V], sn[2 * V];
  const bool per_head = angles.PerHead();
  if (!per_head) {
    angles.template Get<V, kInterleaved>(b, s, 0, lo_vec * V, hi_vec * V, turns, c, sn);
  }
  for (int h = group; h < grid.slots; h += grid.groups) {
    if (per_head) {
      angles.template Get<V, kInterleaved>(b, s, h, lo_vec * V, hi_vec * V, turns, c, sn);
    }
    RotateChunk<T, V, kInterleaved>(q, b, s, h, lo_vec, hi_vec, c, sn);
    RotateChunk<T, V, kInterleaved>(k, b, s, h, lo_vec, hi_vec, c, sn);
  }
}

}  // namespace rope_kernels
