// Registers adaptive_norm and gated_residual with the torch dispatcher;
// checks tensors, then calls the CUDA launchers on the current stream.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <string>

#include "../{{python_name}}_cuda/adaptive_norm.h"
#include "../{{python_name}}_cuda/gated_residual.h"
#include "modulation_checks.h"
#include "registration.h"
#include "torch_binding.h"

using namespace norm_binding;

namespace {

{{python_name}}_cuda::NormKind ParseNorm(std::string_view norm, const char* op) {
  if (norm == "layer") return {{python_name}}_cuda::NormKind::kLayer;
  if (norm == "rms") return {{python_name}}_cuda::NormKind::kRms;
  NORM_CHECK(false, op, ": norm must be \"layer\" or \"rms\", got \"", std::string(norm), "\"");
  return {{python_name}}_cuda::NormKind::kRms;  // not reached: NORM_CHECK throws
}

}  // namespace

at::Tensor adaptive_norm(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                         std::string_view norm, double eps) {
  constexpr const char* kOp = "adaptive_norm";
  const auto kind = ParseNorm(norm, kOp);
  CheckOnCuda(x, x, kOp, "x");
  const auto x_dtype = KernelDType(x, kOp, "x");
  const SampleRows xs = AsSampleRows(x, kOp, "x");
  const auto scale_rows = ModulationRows(scale, x, xs, kOp, "scale");
  const auto shift_rows = ModulationRows(shift, x, xs, kOp, "shift");
  CheckSameDtype(scale, shift, kOp, "scale", "shift");
  at::Tensor out = at::empty(x.sizes(), x.options());
  if (xs.rows.rows == 0 || xs.rows.hidden == 0) return out;
  const c10::cuda::CUDAGuard guard(x.device());
  CheckLaunch({{python_name}}_cuda::LaunchAdaptiveNorm(
                  out.data_ptr(), x.data_ptr(), scale_rows, shift_rows, kind, x_dtype,
                  KernelDType(scale, kOp, "scale"), xs.rows.rows, xs.tokens, xs.rows.hidden,
                  xs.rows.row_stride, xs.rows.hidden, static_cast<float>(eps),
                  at::cuda::getCurrentCUDAStream()),
              kOp);
  return out;
}

at::Tensor gated_residual(const at::Tensor& x, const at::Tensor& y, const at::Tensor& gate) {
  constexpr const char* kOp = "gated_residual";
  CheckOnCuda(x, x, kOp, "x");
  CheckOnCuda(y, x, kOp, "y");
  const auto x_dtype = KernelDType(x, kOp, "x");
  NORM_CHECK(y.sizes() == x.sizes(), kOp, ": y has shape ", ShapeText(y.sizes()), " but x has ",
             ShapeText(x.sizes()), "; hint: they must match (no broadcasting)");
  NORM_CHECK(y.scalar_type() == x.scalar_type(), kOp, ": y has dtype ",
             c10::toString(y.scalar_type()), " but x has ", c10::toString(x.scalar_type()),
             "; hint: cast y to x's dtype");
  const SampleRows xs = AsSampleRows(x, kOp, "x");
  const RowView y_rows = AsRows(y, kOp, "y");
  const auto gate_rows = ModulationRows(gate, x, xs, kOp, "gate");
  at::Tensor out = at::empty(x.sizes(), x.options());
  if (xs.rows.rows == 0 || xs.rows.hidden == 0) return out;
  const c10::cuda::CUDAGuard guard(x.device());
  CheckLaunch(
      {{python_name}}_cuda::LaunchGatedResidual(
          out.data_ptr(), x.data_ptr(), y.data_ptr(), gate_rows, x_dtype,
          KernelDType(gate, kOp, "gate"), xs.rows.rows, xs.tokens, xs.rows.hidden,
          xs.rows.row_stride, y_rows.row_stride, xs.rows.hidden, at::cuda::getCurrentCUDAStream()),
      kOp);
  return out;
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("adaptive_norm(Tensor x, Tensor scale, Tensor shift, str norm, float eps) -> Tensor");
  ops.impl("adaptive_norm", c10::kCUDA, &adaptive_norm);
  ops.def("gated_residual(Tensor x, Tensor y, Tensor gate) -> Tensor");
  ops.impl("gated_residual", c10::kCUDA, &gated_residual);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
