// Registers cross_entropy with the torch dispatcher; checks the logits and
// the targets, then calls the CUDA launcher on the current stream.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../fused_ce_cuda/cross_entropy.h"
#include "registration.h"
#include "tensor_checks.h"
#include "torch_binding.h"

using namespace norm_binding;

at::Tensor cross_entropy(const at::Tensor& logits, const at::Tensor& target,
                         int64_t ignore_index) {
  constexpr const char* kOp = "cross_entropy";
  CheckOnCuda(logits, logits, kOp, "logits");
  CheckOnCuda(target, logits, kOp, "target");
  const auto dtype = KernelDType(logits, kOp, "logits");
  NORM_CHECK(logits.dim() >= 1, kOp,
             ": logits must be [..., vocab], got a 0-d tensor");
  NORM_CHECK(target.scalar_type() == at::kLong, kOp, ": target must be int64, got ",
             c10::toString(target.scalar_type()), "; hint: pass target.long()");
  const auto lead = logits.sizes().slice(0, logits.dim() - 1);
  NORM_CHECK(target.sizes() == lead, kOp, ": target must have shape ",
             ShapeText(lead), " (logits' shape without its last dimension), got ",
             ShapeText(target.sizes()));
  const RowView rows = AsRows(logits, kOp, "logits");
  NORM_CHECK(rows.rows == 0 || rows.hidden > 0, kOp,
             ": logits' last dimension (the vocabulary) must not be empty");
  NORM_CHECK(rows.hidden <= (int64_t{1} << 30), kOp,
             ": vocabularies of up to 2^30 classes are supported, got ",
             Num(rows.hidden));
  at::Tensor loss = at::empty(lead, logits.options().dtype(at::kFloat));
  if (rows.rows == 0) return loss;
  // Targets are rows * 8 bytes: a strided one is made contiguous (no copy
  // when it already is).
  const at::Tensor t = target.contiguous();
  const c10::cuda::CUDAGuard guard(logits.device());
  CheckLaunch(fused_ce_cuda::LaunchCrossEntropy(
                  loss.data_ptr<float>(), logits.data_ptr(),
                  t.data_ptr<int64_t>(), dtype, rows.rows, rows.hidden,
                  rows.row_stride, ignore_index,
                  at::cuda::getCurrentCUDAStream()),
              kOp);
  return loss;
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("cross_entropy(Tensor logits, Tensor target, int ignore_index=-100) -> Tensor");
  ops.impl("cross_entropy", c10::kCUDA, &cross_entropy);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
