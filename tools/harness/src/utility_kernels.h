// The two kernels the harness launches itself, loaded from PTX at run time so
// the harness needs no CUDA compiler:
// - an empty kernel: what one launch costs with no work, for reading
//   launch-bound cases against (kbuild bench --graph's launch floor);
// - a spin kernel: keeps the GPU busy for a set time, so the host can enqueue
//   the timed calls ahead of the GPU and none of its dispatch cost lands
//   between a call's events (timing.cpp);
// - a read kernel: reads a buffer and stores nothing, the second half of the
//   L2 flush (timing.cpp's L2Flusher says why).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace kb::harness {

// Launches the empty kernel (1 block of 32 threads) on `stream`. On failure
// returns the error and fills `error` with what went wrong.
cudaError_t LaunchEmptyKernel(cudaStream_t stream, std::string* error);

// Launches one thread that returns once %globaltimer (the GPU's nanosecond
// clock) has advanced `nanoseconds` past its start. Errors as above.
cudaError_t LaunchSpinKernel(cudaStream_t stream, std::uint64_t nanoseconds, std::string* error);

// Reads the first `bytes` (a multiple of 16) of the device buffer at `buffer`
// (16-byte aligned) with `blocks` blocks of 512 threads; writes nothing.
// Errors as above.
cudaError_t LaunchReadKernel(const void* buffer, std::int64_t bytes, int blocks,
                             cudaStream_t stream, std::string* error);

}  // namespace kb::harness
