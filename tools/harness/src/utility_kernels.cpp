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
.visible .entry kbuild_read_kernel(.param .u64 buffer, .param .u64 vectors, .param .u64 sink)
{
  .reg .pred %past, %keep, %nowhere;
  .reg .b32 %thread, %threads, %block, %blocks, %w0, %w1, %w2, %w3, %acc;
  .reg .b64 %base, %n, %i, %stride, %offset, %address, %thread64, %out;
  ld.param.u64 %base, [buffer];
  ld.param.u64 %n, [vectors];
  ld.param.u64 %out, [sink];
  cvta.to.global.u64 %base, %base;
  mov.u32 %thread, %tid.x;
  mov.u32 %threads, %ntid.x;
  mov.u32 %block, %ctaid.x;
  mov.u32 %blocks, %nctaid.x;
  mul.wide.u32 %i, %block, %threads;
  cvt.u64.u32 %thread64, %thread;
  add.u64 %i, %i, %thread64;
  mul.wide.u32 %stride, %blocks, %threads;
  mov.b32 %acc, 0;
next:
  setp.ge.u64 %past, %i, %n;
  @%past bra summed;
  shl.b64 %offset, %i, 4;
  add.u64 %address, %base, %offset;
  ld.global.v4.b32 {%w0, %w1, %w2, %w3}, [%address];
  xor.b32 %acc, %acc, %w0;
  xor.b32 %acc, %acc, %w1;
  xor.b32 %acc, %acc, %w2;
  xor.b32 %acc, %acc, %w3;
  add.u64 %i, %i, %stride;
  bra next;
summed:
  setp.eq.b32 %keep, %acc, 0x12345678;
  @!%keep bra end;
  setp.eq.u64 %nowhere, %out, 0;
  @%nowhere bra end;
  cvta.to.global.u64 %out, %out;
  st.global.b32 [%out], %acc;
end:
  ret;
}
)";

struct Loaded {
  cudaKernel_t empty = nullptr;
  cudaKernel_t spin = nullptr;
  cudaKernel_t read = nullptr;
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
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&loaded.read, library, "kbuild_read_kernel");
    if (e != cudaSuccess) {
      loaded = Loaded{};
      loaded.error = "loading the harness's utility kernels: " + CudaErrorText(e);
    }
  });
  return loaded;
}

// cudaLaunchKernel takes a cudaKernel_t passed as the function pointer.
cudaError_t Launch(cudaKernel_t Loaded::*which, const char* what, int blocks, int threads,
                   void** args, cudaStream_t stream, std::string* error) {
  const Loaded& loaded = UtilityKernels();
  if (loaded.*which == nullptr) {
    *error = loaded.error;
    return cudaErrorInvalidDeviceFunction;
  }
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(loaded.*which), dim3(blocks),
                                         dim3(threads), args, 0, stream);
  if (e != cudaSuccess) *error = std::string("launching the ") + what + ": " + CudaErrorText(e);
  return e;
}

}  // namespace

cudaError_t LaunchEmptyKernel(cudaStream_t stream, std::string* error) {
  return Launch(&Loaded::empty, "empty kernel", 1, 32, nullptr, stream, error);
}

cudaError_t LaunchSpinKernel(cudaStream_t stream, std::uint64_t nanoseconds, std::string* error) {
  void* args[] = {&nanoseconds};
  return Launch(&Loaded::spin, "spin kernel", 1, 1, args, stream, error);
}

cudaError_t LaunchReadKernel(const void* buffer, std::int64_t bytes, int blocks,
                             cudaStream_t stream, std::string* error) {
  std::uint64_t vectors = static_cast<std::uint64_t>(bytes) / 16;
  std::uint64_t sink = 0;  // null: the kernel then never stores, whatever it sums
  void* args[] = {&buffer, &vectors, &sink};
  return Launch(&Loaded::read, "L2 flush read kernel", blocks, 512, args, stream, error);
}

}  // namespace kb::harness
