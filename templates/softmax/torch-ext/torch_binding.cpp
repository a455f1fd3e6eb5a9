// Registers softmax with the torch dispatcher; checks the input, then calls
// the CUDA launcher on the current stream.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../{{python_name}}_cuda/softmax.h"
#include "registration.h"
#include "tensor_checks.h"
#include "torch_binding.h"

using namespace norm_binding;

at::Tensor softmax(const at::Tensor& input) {
  constexpr const char* kOp = "softmax";
  CheckOnCuda(input, input, kOp, "input");
  const auto dtype = KernelDType(input, kOp, "input");
  const RowView rows = AsRows(input, kOp, "input");
  at::Tensor out = at::empty(input.sizes(), input.options());
  if (rows.rows == 0 || rows.hidden == 0) return out;
  const c10::cuda::CUDAGuard guard(input.device());
  CheckLaunch({{python_name}}_cuda::LaunchSoftmax(
                  out.data_ptr(), input.data_ptr(), dtype, rows.rows,
                  rows.hidden, rows.row_stride, rows.hidden,
                  at::cuda::getCurrentCUDAStream()),
              kOp);
  return out;
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("softmax(Tensor input) -> Tensor");
  ops.impl("softmax", c10::kCUDA, &softmax);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
