// Registers scale_add with the torch dispatcher. Checks every tensor with a
// message naming it and the property it lacks, then calls the CUDA launcher
// on the current stream.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../{{python_name}}_cuda/scale_add.h"
#include "registration.h"
#include "torch_binding.h"

namespace {

{{python_name}}::DType ToKernelDType(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return {{python_name}}::DType::kFloat32;
    case at::kHalf:
      return {{python_name}}::DType::kFloat16;
    case at::kBFloat16:
      return {{python_name}}::DType::kBFloat16;
    default:
      TORCH_CHECK(false, "scale_add: dtype ", type,
                  " is not supported; use float32, float16 or bfloat16");
  }
}

void CheckOperand(const at::Tensor& t, const char* name, const at::Tensor& x) {
  TORCH_CHECK(t.is_cuda(), "scale_add: ", name, " must be a CUDA tensor, got device ", t.device());
  TORCH_CHECK(t.device() == x.device(), "scale_add: ", name, " is on ", t.device(), " but x is on ",
              x.device(), "; move both to the same GPU");
  TORCH_CHECK(t.scalar_type() == x.scalar_type(), "scale_add: ", name, " has dtype ",
              t.scalar_type(), " but x has dtype ", x.scalar_type(), "; cast them to one dtype");
  TORCH_CHECK(t.sizes() == x.sizes(), "scale_add: ", name, " has shape ", t.sizes(),
              " but x has shape ", x.sizes(), "; broadcasting is not supported");
  TORCH_CHECK(t.is_contiguous(), "scale_add: ", name,
              " must be contiguous; call .contiguous() first");
}

}  // namespace

void scale_add_out(at::Tensor& out, const at::Tensor& x, const at::Tensor& y, double alpha) {
  CheckOperand(x, "x", x);
  CheckOperand(y, "y", x);
  CheckOperand(out, "out", x);
  const {{python_name}}::DType dtype = ToKernelDType(x.scalar_type());
  const c10::cuda::CUDAGuard device_guard(x.device());
  const cudaError_t status = {{python_name}}::LaunchScaleAdd(
      out.data_ptr(), x.const_data_ptr(), y.const_data_ptr(), static_cast<float>(alpha), x.numel(),
      dtype, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(status == cudaSuccess,
              "scale_add: kernel launch failed: ", cudaGetErrorString(status));
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
