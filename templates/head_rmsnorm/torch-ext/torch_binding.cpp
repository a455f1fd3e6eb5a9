// Registers head_rms_norm with the torch dispatcher; checks tensors, then
// calls the CUDA launcher on the current stream.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../{{python_name}}_cuda/head_rms_norm.h"
#include "registration.h"
#include "tensor_checks.h"
#include "torch_binding.h"

using namespace norm_binding;

at::Tensor head_rms_norm(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                         double eps) {
  constexpr const char* kOp = "head_rms_norm";
  CheckOnCuda(input, input, kOp, "input");
  const auto x_dtype = KernelDType(input, kOp, "input");
  const RowView rows = AsRows(input, kOp, "input");
  // NORM_CHECK, never TORCH_CHECK with numbers: see tensor_checks.h.
  NORM_CHECK(rows.hidden <= {{python_name}}_cuda::kMaxHeadDim, kOp,
             ": head_dim (the last dimension of input) is ", Num(rows.hidden),
             ", above the supported ", Num({{python_name}}_cuda::kMaxHeadDim),
             "; hint: use rms_norm for long rows");
  const WeightArg w = OptionalWeight(weight, input, rows.hidden, kOp);
  at::Tensor out = at::empty(input.sizes(), input.options());
  if (rows.rows == 0 || rows.hidden == 0) return out;
  const c10::cuda::CUDAGuard guard(input.device());
  CheckLaunch(
      {{python_name}}_cuda::LaunchHeadRmsNorm(out.data_ptr(), input.data_ptr(), w.ptr, x_dtype, w.dtype,
                                         rows.rows, rows.hidden, rows.row_stride, rows.hidden,
                                         static_cast<float>(eps), at::cuda::getCurrentCUDAStream()),
      kOp);
  return out;
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("head_rms_norm(Tensor input, Tensor? weight, float eps) -> Tensor");
  ops.impl("head_rms_norm", c10::kCUDA, &head_rms_norm);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
