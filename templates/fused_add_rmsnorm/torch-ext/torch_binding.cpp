// Registers fused_add_rms_norm with the torch dispatcher; checks tensors,
// then calls the CUDA launcher on the current stream.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../{{python_name}}_cuda/fused_add_rms_norm.h"
#include "registration.h"
#include "tensor_checks.h"
#include "torch_binding.h"

using namespace norm_binding;

void fused_add_rms_norm(at::Tensor& input, at::Tensor& residual, const at::Tensor& weight,
                        double eps) {
  constexpr const char* kOp = "fused_add_rms_norm";
  CheckOnCuda(input, input, kOp, "input");
  CheckOnCuda(residual, input, kOp, "residual");
  // NORM_CHECK, never TORCH_CHECK with numbers: see tensor_checks.h.
  NORM_CHECK(residual.sizes() == input.sizes(), kOp, ": residual has shape ",
             ShapeText(residual.sizes()), " but input has ", ShapeText(input.sizes()),
             "; hint: they must match (no broadcasting)");
  NORM_CHECK(residual.scalar_type() == input.scalar_type(), kOp, ": residual has dtype ",
             c10::toString(residual.scalar_type()), " but input has ",
             c10::toString(input.scalar_type()), "; hint: cast residual to input's dtype");
  const auto x_dtype = KernelDType(input, kOp, "input");
  const RowView x_rows = AsRows(input, kOp, "input");
  const RowView r_rows = AsRows(residual, kOp, "residual");
  CheckWritableRows(x_rows, kOp, "input");
  CheckWritableRows(r_rows, kOp, "residual");
  CheckWeight(weight, input, x_rows.hidden, kOp);
  if (x_rows.rows == 0 || x_rows.hidden == 0) return;
  const c10::cuda::CUDAGuard guard(input.device());
  CheckLaunch({{python_name}}_cuda::LaunchFusedAddRmsNorm(
                  input.data_ptr(), residual.data_ptr(), weight.data_ptr(), x_dtype,
                  KernelDType(weight, kOp, "weight"), x_rows.rows, x_rows.hidden, x_rows.row_stride,
                  r_rows.row_stride, static_cast<float>(eps), at::cuda::getCurrentCUDAStream()),
              kOp);
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def(
      "fused_add_rms_norm(Tensor(a!) input, Tensor(b!) residual, "
      "Tensor weight, float eps) -> ()");
  ops.impl("fused_add_rms_norm", c10::kCUDA, &fused_add_rms_norm);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
