#include "kbuild/harness/cuda_sync.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

namespace kb::harness {

std::string CudaErrorText(cudaError_t status) {
  if (status == cudaSuccess) status = cudaGetLastError();
  if (status == cudaSuccess) return "";
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

std::string SyncCurrentStream(c10::Device device) {
  if (!device.is_cuda()) return "";
  return CudaErrorText(
      cudaStreamSynchronize(c10::cuda::getCurrentCUDAStream(device.index()).stream()));
}

std::string SyncDevice(c10::Device device) {
  if (!device.is_cuda()) return "";
  return CudaErrorText(cudaDeviceSynchronize());
}

struct ScopedHarnessStream::Impl {
  explicit Impl(c10::Device device)
      : guard(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())) {}
  c10::cuda::CUDAStreamGuard guard;
};

ScopedHarnessStream::ScopedHarnessStream(c10::Device device) {
  if (device.is_cuda()) impl_ = std::make_unique<Impl>(device);
}

ScopedHarnessStream::~ScopedHarnessStream() = default;

}  // namespace kb::harness
