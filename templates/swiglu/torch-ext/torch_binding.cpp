// Registers swiglu and silu_mul with the torch dispatcher; checks tensors
// (gated_inputs.h), then calls the CUDA launcher on the current stream.
#include <torch/library.h>

#include "../{{python_name}}_cuda/swiglu.h"
#include "gated_inputs.h"
#include "registration.h"
#include "torch_binding.h"

namespace {

at::Tensor RunSiluMul(const gated_binding::GatedInputs& in, const char* op) {
  return gated_binding::RunGated(in, op, [&](void* out, cudaStream_t stream) {
    return {{python_name}}_cuda::LaunchSiluMul(out, in.gate, in.up, in.dtype, in.rows, in.d,
                                               in.d, in.gate_stride, in.up_stride, stream);
  });
}

}  // namespace

at::Tensor swiglu(const at::Tensor& x, bool gate_first) {
  return RunSiluMul(gated_binding::HalvesOf(x, gate_first, "swiglu"), "swiglu");
}

at::Tensor silu_mul(const at::Tensor& gate, const at::Tensor& up) {
  return RunSiluMul(gated_binding::PairOf(gate, up, "silu_mul"), "silu_mul");
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("swiglu(Tensor x, bool gate_first=True) -> Tensor");
  ops.impl("swiglu", c10::kCUDA, &swiglu);
  ops.def("silu_mul(Tensor gate, Tensor up) -> Tensor");
  ops.impl("silu_mul", c10::kCUDA, &silu_mul);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
