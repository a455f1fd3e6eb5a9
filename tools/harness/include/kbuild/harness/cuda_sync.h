// Waits for the GPU and turns CUDA errors into messages. No-ops for CPU
// devices, so the correctness logic also runs (and is unit-tested) on CPU.
#pragma once

#include <c10/core/Device.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace kb::harness {

// "" when fine, else "cudaErrorIllegalAddress: an illegal memory access was
// encountered". Both also collect errors from earlier asynchronous launches
// (cudaGetLastError).
std::string SyncCurrentStream(c10::Device device);  // the caller's (current) stream only
std::string SyncDevice(c10::Device device);         // every stream on the device

// The same message for one runtime call's status: "" when it and the
// runtime's last error (read, and so cleared, only when the status is fine)
// are cudaSuccess.
std::string CudaErrorText(cudaError_t status);

// Makes a fresh non-default stream current while alive. The legacy default
// stream implicitly waits for other blocking streams, which would hide an op
// that does its work on a side stream; a pool stream does not.
class ScopedHarnessStream {
 public:
  explicit ScopedHarnessStream(c10::Device device);
  ~ScopedHarnessStream();
  ScopedHarnessStream(const ScopedHarnessStream&) = delete;
  ScopedHarnessStream& operator=(const ScopedHarnessStream&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kb::harness
