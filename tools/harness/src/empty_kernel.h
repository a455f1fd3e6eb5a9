// An empty kernel, loaded from PTX at run time so the harness needs no CUDA
// compiler: what one launch costs with no work, for reading launch-bound
// cases against (kbuild bench --graph's launch floor).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kb::harness {

// Launches the empty kernel (1 block of 32 threads) on `stream`. On failure
// returns the error and fills `error` with what went wrong.
cudaError_t LaunchEmptyKernel(cudaStream_t stream, std::string* error);

}  // namespace kb::harness
