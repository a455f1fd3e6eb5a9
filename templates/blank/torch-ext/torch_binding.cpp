// Registers scale_add with the torch dispatcher. Checks every tensor with a
// message naming it and the property it lacks, then calls the CUDA launcher
// on the current stream.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <string>

#include "../{{python_name}}_cuda/scale_add.h"
#include "registration.h"
#include "torch_binding.h"

namespace {

// Error messages are joined into one std::string (numbers via std::to_string)
// and handed to TORCH_CHECK as a single const char*, which c10 passes on as is:
// no std::ostream runs in this library. On an H200 machine (Ubuntu 24.04,
// g++ 13.3, torch 2.11), streaming an integer from a binding loaded by Python
// crashed (SIGSEGV in ostream::_M_insert<long>) instead of raising. Keep it
// that way when adding checks (a lone std::string would still be streamed).
#define CHECK_WITH_TEXT(cond, text) TORCH_CHECK(cond, std::string(text).c_str())

// "[4, 8, 128]", the same text c10 prints for sizes.
std::string ShapeText(at::IntArrayRef dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

{{python_name}}_cuda::DType ToKernelDType(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return {{python_name}}_cuda::DType::kFloat32;
    case at::kHalf:
      return {{python_name}}_cuda::DType::kFloat16;
    case at::kBFloat16:
      return {{python_name}}_cuda::DType::kBFloat16;
    default:
      CHECK_WITH_TEXT(false, std::string("scale_add: dtype ") + c10::toString(type) +
                                 " is not supported; use float32, float16 or bfloat16");
  }
}

void CheckOperand(const at::Tensor& t, const char* name, const at::Tensor& x) {
  const std::string op = std::string("scale_add: ") + name;
  CHECK_WITH_TEXT(t.is_cuda(), op + " must be a CUDA tensor, got device " + t.device().str());
  CHECK_WITH_TEXT(t.device() == x.device(), op + " is on " + t.device().str() + " but x is on " +
                                                x.device().str() + "; move both to the same GPU");
  CHECK_WITH_TEXT(t.scalar_type() == x.scalar_type(),
                  op + " has dtype " + c10::toString(t.scalar_type()) + " but x has dtype " +
                      c10::toString(x.scalar_type()) + "; cast them to one dtype");
  CHECK_WITH_TEXT(t.sizes() == x.sizes(), op + " has shape " + ShapeText(t.sizes()) +
                                              " but x has shape " + ShapeText(x.sizes()) +
                                              "; broadcasting is not supported");
  CHECK_WITH_TEXT(t.is_contiguous(), op + " must be contiguous; call .contiguous() first");
}

}  // namespace

void scale_add_out(at::Tensor& out, const at::Tensor& x, const at::Tensor& y, double alpha) {
  CheckOperand(x, "x", x);
  CheckOperand(y, "y", x);
  CheckOperand(out, "out", x);
  const {{python_name}}_cuda::DType dtype = ToKernelDType(x.scalar_type());
  const c10::cuda::CUDAGuard device_guard(x.device());
  const cudaError_t status = {{python_name}}_cuda::LaunchScaleAdd(
      out.data_ptr(), x.const_data_ptr(), y.const_data_ptr(), static_cast<float>(alpha), x.numel(),
      dtype, at::cuda::getCurrentCUDAStream());
  CHECK_WITH_TEXT(status == cudaSuccess,
                  std::string("scale_add: kernel launch failed: ") + cudaGetErrorString(status));
}

at::Tensor scale_add(const at::Tensor& x, const at::Tensor& y, double alpha) {
  at::Tensor out = at::empty_like(x, at::MemoryFormat::Contiguous);
  scale_add_out(out, x, y, alpha);
  return out;
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor");
  ops.impl("scale_add", c10::kCUDA, &scale_add);
  ops.def("scale_add_out(Tensor(a!) out, Tensor x, Tensor y, float alpha=1.0) -> ()");
  ops.impl("scale_add_out", c10::kCUDA, &scale_add_out);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
