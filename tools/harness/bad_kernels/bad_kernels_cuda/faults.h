// Launchers for kernels that end badly on purpose, to prove that `kbuild test`
// isolates them: each GoogleTest test runs in its own process with a timeout,
// so a faulting or endless kernel fails its own test and nothing else.
// Both claim copy's contract (out = x) and never meet it.
#pragma once

#include <cuda_runtime.h>

namespace bad_kernels {

// Writes through an address just past null, outside any allocation: the
// launch returns cudaSuccess, the next synchronization cudaErrorIllegalAddress.
cudaError_t LaunchCrashIllegalAddress(cudaStream_t stream);

// Spins on a device flag that nothing ever sets: the kernel never finishes,
// so only the caller's timeout (kbuild test --timeout) ends the process.
cudaError_t LaunchHang(cudaStream_t stream);

}  // namespace bad_kernels
