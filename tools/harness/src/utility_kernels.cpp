#include "utility_kernels.h"

#include <mutex>

#include "kbuild/harness/cuda_sync.h"

namespace kb::harness {

namespace {

// PTX 7.0 for sm_75: the driver JIT-compiles it once for whatever GPU runs it
// (every GPU torch 2.11's CUDA 13 builds support is sm_75 or newer).
// The spin reads %globaltimer rather than counting clock cycles: its length
// then holds whatever clock the SM runs at.
constexpr const char* kUtilityKernelsPtx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry kbuild_empty_kernel()
{
  ret;
}
.visible .entry kbuild_spin_kernel(.param .u64 nanoseconds)
{
  .reg .pred %done;
  .reg .u64 %length, %start, %now, %elapsed;
  ld.param.u64 %length, [nanoseconds];
  mov.u64 %start, %globaltimer;
spin:
  mov.u64 %now, %globaltimer;
  sub.u64 %elapsed, %now, %start;
  setp.ge.u64 %done, %elapsed, %length;
  @!%done bra spin;
  ret;
}
)";

struct Loaded {
  cudaKernel_t empty = nullptr;
  cudaKernel_t spin = nullptr;
  std::string error;
};

// Loaded once per process; a cudaLibrary_t serves every device.
const Loaded& UtilityKernels() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    cudaLibrary_t library = nullptr;
    cudaError_t e =
        cudaLibraryLoadData(&library, kUtilityKernelsPtx, nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&loaded.empty, library, "kbuild_empty_kernel");
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&loaded.spin, library, "kbuild_spin_kernel");
    if (e != cudaSuccess) {
      loaded = Loaded{};
      loaded.error = "loading the harness's utility kernels: " + CudaErrorText(e);
    }
  });
  return loaded;
}

// cudaLaunchKernel takes a cudaKernel_t passed as the function pointer.
cudaError_t Launch(cudaKernel_t Loaded::*which, const char* what, int threads, void** args,
                   cudaStream_t stream, std::string* error) {
  const Loaded& loaded = UtilityKernels();
  if (loaded.*which == nullptr) {
    *error = loaded.error;
    return cudaErrorInvalidDeviceFunction;
  }
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(loaded.*which), dim3(1),
                                         dim3(threads), args, 0, stream);
  if (e != cudaSuccess) *error = std::string("launching the ") + what + ": " + CudaErrorText(e);
  return e;
}

}  // namespace

cudaError_t LaunchEmptyKernel(cudaStream_t stream, std::string* error) {
  return Launch(&Loaded::empty, "empty kernel", 32, nullptr, stream, error);
}

cudaError_t LaunchSpinKernel(cudaStream_t stream, std::uint64_t nanoseconds, std::string* error) {
  void* args[] = {&nanoseconds};
  return Launch(&Loaded::spin, "spin kernel", 1, args, stream, error);
}

}  // namespace kb::harness
