// Registers layer_norm with the torch dispatcher; checks tensors, then calls
// the CUDA launcher on the current stream.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../{{python_name}}_cuda/layer_norm.h"
#include "registration.h"
#include "tensor_checks.h"
#include "torch_binding.h"

using namespace norm_binding;

namespace {

constexpr const char* kOp = "layer_norm";

// The bias as the kernels see it: [hidden] contiguous elements of the
// weight's dtype (the kernels read both as one type), or of input's dtype or
// float32 without a weight; nullptr if absent.
WeightArg OptionalBias(const std::optional<at::Tensor>& bias,
                       const std::optional<at::Tensor>& weight, const at::Tensor& input,
                       int64_t hidden) {
  if (!bias.has_value()) return {nullptr, KernelDType(input, kOp, "input")};
  const at::Tensor& b = *bias;
  CheckOnCuda(b, input, kOp, "bias");
  NORM_CHECK(b.dim() == 1 && b.size(0) == hidden && (b.stride(0) == 1 || hidden <= 1), kOp,
             ": bias must be ", Num(hidden),
             " contiguous elements (the last dimension of input), got shape ", ShapeText(b.sizes()),
             " with strides ", ShapeText(b.strides()), "; hint: pass bias.contiguous()");
  if (weight.has_value()) {
    NORM_CHECK(b.scalar_type() == weight->scalar_type(), kOp, ": bias has dtype ",
               c10::toString(b.scalar_type()), " but weight has ",
               c10::toString(weight->scalar_type()),
               "; supported: weight and bias of one dtype (input's or float32)");
  } else {
    NORM_CHECK(b.scalar_type() == input.scalar_type() || b.scalar_type() == at::kFloat, kOp,
               ": bias has dtype ", c10::toString(b.scalar_type()), " but input has ",
               c10::toString(input.scalar_type()), "; supported: bias of input's dtype or float32");
  }
  return {b.data_ptr(), KernelDType(b, kOp, "bias")};
}

}  // namespace

at::Tensor layer_norm(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                      const std::optional<at::Tensor>& bias, double eps) {
  CheckOnCuda(input, input, kOp, "input");
  const auto x_dtype = KernelDType(input, kOp, "input");
  const RowView rows = AsRows(input, kOp, "input");
  const WeightArg w = OptionalWeight(weight, input, rows.hidden, kOp);
  const WeightArg b = OptionalBias(bias, weight, input, rows.hidden);
  at::Tensor out = at::empty(input.sizes(), input.options());
  if (rows.rows == 0 || rows.hidden == 0) return out;
  const c10::cuda::CUDAGuard guard(input.device());
  const kernels_common::DType param_dtype = weight.has_value() ? w.dtype : b.dtype;
  CheckLaunch({{python_name}}_cuda::LaunchLayerNorm(
                  out.data_ptr(), input.data_ptr(), w.ptr, b.ptr, x_dtype, param_dtype, rows.rows,
                  rows.hidden, rows.row_stride, rows.hidden, static_cast<float>(eps),
                  at::cuda::getCurrentCUDAStream()),
              kOp);
  return out;
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("layer_norm(Tensor input, Tensor? weight, Tensor? bias, float eps) -> Tensor");
  ops.impl("layer_norm", c10::kCUDA, &layer_norm);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
