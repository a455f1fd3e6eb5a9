// Registers linear_gelu with the torch dispatcher; checks tensors, then calls the
// CUDA launcher on the current stream.
//
// Layout decision: A and B are read in place when each row is contiguous
// (stride(1) == 1), with any row stride (a slice of a wider matrix, or a
// broadcast row of stride 0). A transposed view (stride(0) == 1, as
// `w.t()` of a Linear weight) is refused with a hint rather than copied
// silently: the copy would cost a pass over the matrix the caller may not
// expect, so the caller writes `.contiguous()` where it wants one.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../linear_gelu_cuda/linear_gelu.h"
#include "../linear_gelu_cuda/gemm_plan.h"
#include "registration.h"
#include "tensor_checks.h"
#include "torch_binding.h"

using namespace norm_binding;
namespace kernel = linear_gelu_cuda;

namespace {

void CheckFloat32(const at::Tensor& t, const char* op, const char* name) {
  NORM_CHECK(t.scalar_type() == at::kFloat, op, ": ", name, " has dtype ",
             c10::toString(t.scalar_type()),
             "; supported: float32 (an fp32 GEMM + GELU on CUDA cores; bf16 and fp16 "
             "belong on tensor cores: torch.mm)");
}

// A matrix read in place: rows of contiguous elements; returns the number of
// elements between rows.
int64_t RowStride(const at::Tensor& t, const char* op, const char* name) {
  NORM_CHECK(t.dim() == 2, op, ": ", name, " must be 2-D, got shape ", ShapeText(t.sizes()),
             "; hint: reshape it to a matrix");
  NORM_CHECK(t.size(1) <= 1 || t.stride(1) == 1, op, ": ", name,
             " must have contiguous rows (stride(1) == 1), got strides ", ShapeText(t.strides()),
             " for shape ", ShapeText(t.sizes()),
             " (a transposed view is not read in place); hint: pass ", name, ".contiguous()");
  NORM_CHECK(t.size(0) <= kernel::kMaxDim && t.size(1) <= kernel::kMaxDim, op, ": ", name,
             " has shape ", ShapeText(t.sizes()), "; each size must be below 2^31");
  return t.size(0) <= 1 ? t.size(1) : t.stride(0);
}

}  // namespace

at::Tensor linear_gelu(const at::Tensor& a, const at::Tensor& b,
                       const std::optional<at::Tensor>& bias) {
  constexpr const char* kOp = "linear_gelu";
  CheckOnCuda(a, a, kOp, "a");
  CheckOnCuda(b, a, kOp, "b");
  CheckFloat32(a, kOp, "a");
  CheckFloat32(b, kOp, "b");
  const int64_t lda = RowStride(a, kOp, "a");
  const int64_t ldb = RowStride(b, kOp, "b");
  const int64_t m = a.size(0);
  const int64_t k = a.size(1);
  const int64_t n = b.size(1);
  NORM_CHECK(b.size(0) == k, kOp, ": a is ", ShapeText(a.sizes()), " and b is ",
             ShapeText(b.sizes()), "; a.size(1) must equal b.size(0)");
  const float* bias_ptr = nullptr;
  if (bias.has_value()) {
    CheckOnCuda(*bias, a, kOp, "bias");
    CheckFloat32(*bias, kOp, "bias");
    NORM_CHECK(bias->dim() == 1 && bias->size(0) == n, kOp, ": bias must have shape [", Num(n),
               "] (b.size(1)), got ", ShapeText(bias->sizes()));
    NORM_CHECK(n <= 1 || bias->stride(0) == 1, kOp, ": bias must be contiguous, got stride ",
               Num(bias->stride(0)), "; hint: pass bias.contiguous()");
    bias_ptr = bias->data_ptr<float>();
  }
  at::Tensor c = at::empty({m, n}, a.options());
  if (m == 0 || n == 0) return c;
  const c10::cuda::CUDAGuard guard(a.device());
  CheckLaunch(kernel::LaunchLinearGelu(c.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(),
                                 bias_ptr, m, n, k, lda, ldb, at::cuda::getCurrentCUDAStream()),
              kOp);
  return c;
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("linear_gelu(Tensor a, Tensor b, Tensor? bias=None) -> Tensor");
  ops.impl("linear_gelu", c10::kCUDA, &linear_gelu);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
