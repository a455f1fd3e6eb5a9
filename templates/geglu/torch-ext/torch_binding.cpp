// Registers geglu and gelu_mul with the torch dispatcher; checks tensors
// (gated_inputs.h) and `approximate`, then calls the CUDA launcher on the
// current stream.
#include <torch/library.h>

#include <string>

#include "../{{python_name}}_cuda/geglu.h"
#include "gated_inputs.h"
#include "registration.h"
#include "torch_binding.h"

namespace {

using {{python_name}}_cuda::GeluApproximation;

GeluApproximation ParseApproximation(const std::string& approximate, const char* op) {
  if (approximate == "none") return GeluApproximation::kNone;
  NORM_CHECK(approximate == "tanh", op, ": approximate must be 'none' or 'tanh' (as F.gelu), got '",
             approximate, "'");
  return GeluApproximation::kTanh;
}

at::Tensor RunGeluMul(const gated_binding::GatedInputs& in, const std::string& approximate,
                      const char* op) {
  const GeluApproximation approx = ParseApproximation(approximate, op);
  return gated_binding::RunGated(in, op, [&](void* out, cudaStream_t stream) {
    return {{python_name}}_cuda::LaunchGeluMul(out, in.gate, in.up, in.dtype, approx, in.rows,
                                               in.d, in.d, in.gate_stride, in.up_stride, stream);
  });
}

}  // namespace

at::Tensor geglu(const at::Tensor& x, bool gate_first, const std::string& approximate) {
  return RunGeluMul(gated_binding::HalvesOf(x, gate_first, "geglu"), approximate, "geglu");
}

at::Tensor gelu_mul(const at::Tensor& gate, const at::Tensor& up, const std::string& approximate) {
  return RunGeluMul(gated_binding::PairOf(gate, up, "gelu_mul"), approximate, "gelu_mul");
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("geglu(Tensor x, bool gate_first=True, str approximate='none') -> Tensor");
  ops.impl("geglu", c10::kCUDA, &geglu);
  ops.def("gelu_mul(Tensor gate, Tensor up, str approximate='none') -> Tensor");
  ops.impl("gelu_mul", c10::kCUDA, &gelu_mul);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
