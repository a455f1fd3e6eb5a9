// A copy that is correct but slow on purpose, for `kbuild profile` to
// diagnose: each thread copies its own run of 32 consecutive elements, so a
// warp's load touches 32 sectors and uses 4 of each one's 32 bytes
// (uncoalesced), and the run passes through a local array indexed at run
// time (local-memory traffic, as a spill makes).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace bad_kernels {

cudaError_t LaunchSlowCopy(float* out, const float* x, int64_t n, cudaStream_t stream);

}  // namespace bad_kernels
