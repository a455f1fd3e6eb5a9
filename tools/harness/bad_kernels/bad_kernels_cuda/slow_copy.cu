// The deliberately slow copy of slow_copy.h: uncoalesced, through local memory.
#include "slow_copy.h"

namespace bad_kernels {
namespace {

constexpr int kRun = 32;  // consecutive elements per thread
constexpr int kThreads = 256;

// rotate: 0 at run time, unknown to the compiler, so buf is indexed
// dynamically and lives in local memory.
__global__ void SlowCopyKernel(float* __restrict__ out, const float* __restrict__ x, int64_t n,
                               int rotate) {
  const int64_t begin = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kRun;
  if (begin >= n) return;
  const int count = static_cast<int>(n - begin < kRun ? n - begin : kRun);
  float buf[kRun];
  for (int i = 0; i < count; ++i) buf[(i + rotate) % kRun] = x[begin + i];
  for (int i = 0; i < count; ++i) out[begin + i] = buf[(i + rotate) % kRun];
}

}  // namespace

cudaError_t LaunchSlowCopy(float* out, const float* x, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int64_t threads = (n + kRun - 1) / kRun;
  const int64_t blocks = (threads + kThreads - 1) / kThreads;
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  SlowCopyKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(out, x, n, 0);
  return cudaGetLastError();
}

}  // namespace bad_kernels
