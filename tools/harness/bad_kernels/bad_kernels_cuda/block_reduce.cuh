// Block-wide sum and max for blocks of up to 1024 threads (a multiple of 32):
// the one reduction every kernel in this project uses. `partial` is 32 floats
// of shared memory; every thread gets the result.
#pragma once

namespace bad_kernels {

template <typename Combine>
__device__ float BlockReduce(float value, float* partial, float identity, Combine combine,
                             bool barriers) {
  for (int offset = 16; offset > 0; offset >>= 1)
    value = combine(value, __shfl_xor_sync(0xffffffffu, value, offset));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (barriers) __syncthreads();  // `partial` may still be read by an earlier reduction
  if (lane == 0) partial[warp] = value;
  if (barriers) __syncthreads();
  value = lane < blockDim.x / 32 ? partial[lane] : identity;
  for (int offset = 16; offset > 0; offset >>= 1)
    value = combine(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

// Without barriers, warps read partial sums other warps have not written
// yet: the classic missing-__syncthreads race (Flaw::kSharedRace).
__device__ inline float BlockSum(float value, float* partial, bool barriers = true) {
  return BlockReduce(
      value, partial, 0.f, [](float a, float b) { return a + b; }, barriers);
}

__device__ inline float BlockMax(float value, float* partial) {
  return BlockReduce(
      value, partial, -INFINITY, [](float a, float b) { return fmaxf(a, b); }, true);
}

}  // namespace bad_kernels
