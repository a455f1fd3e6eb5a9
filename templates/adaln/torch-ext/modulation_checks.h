// Checks of the DiT ops' tensors, on top of tensor_checks.h: x of [b, tokens,
// hidden], and modulation tensors (shift, scale, gate) broadcast over it per
// sample or per token. Each failure names the op, the tensor and the
// property, and says how to fix it.
#pragma once

#include <ATen/core/Tensor.h>

#include "../{{python_name}}_cuda/common/param_rows.h"
#include "tensor_checks.h"

namespace norm_binding {

// x as rows: [b, tokens, hidden], `tokens` rows per sample.
struct SampleRows {
  RowView rows;
  int64_t samples;
  int64_t tokens;
};

inline SampleRows AsSampleRows(const at::Tensor& x, const char* op, const char* name) {
  NORM_CHECK(x.dim() == 3, op, ": ", name, " must have shape [batch, tokens, hidden], got ",
             ShapeText(x.sizes()), "; hint: add the batch dimension with ", name, ".unsqueeze(0)");
  return {AsRows(x, op, name), x.size(0), x.size(1)};
}

// A modulation tensor for x: [b or 1, hidden], [b or 1, 1, hidden] (per
// sample) or [b or 1, tokens, hidden] (per token), contiguous in its last
// dimension (views of a wider tensor, e.g. chunks of [b, tokens, 6, hidden],
// are fine), of x's dtype or float32. A dimension of size 1 broadcasts.
inline kernels_common::ParamRows ModulationRows(const at::Tensor& m, const at::Tensor& x,
                                                const SampleRows& xs, const char* op,
                                                const char* name) {
  CheckOnCuda(m, x, op, name);
  const std::string want =
      "[" + Num(xs.samples) + " or 1, (1 or " + Num(xs.tokens) + ",) " + Num(xs.rows.hidden) + "]";
  const bool rank_ok = m.dim() == 2 || m.dim() == 3;
  NORM_CHECK(rank_ok && m.size(-1) == xs.rows.hidden &&
                 (m.size(0) == xs.samples || m.size(0) == 1) &&
                 (m.dim() == 2 || m.size(1) == xs.tokens || m.size(1) == 1),
             op, ": ", name, " must have shape ", want, " (per sample or per token, for ",
             "input of shape ", ShapeText(x.sizes()), "), got ", ShapeText(m.sizes()));
  NORM_CHECK(m.stride(-1) == 1 || xs.rows.hidden <= 1, op, ": ", name,
             " must be contiguous in its last dimension, got stride(-1) = ", Num(m.stride(-1)),
             "; hint: pass ", name, ".contiguous()");
  NORM_CHECK(m.scalar_type() == x.scalar_type() || m.scalar_type() == at::kFloat, op, ": ", name,
             " has dtype ", c10::toString(m.scalar_type()), " but input has ",
             c10::toString(x.scalar_type()), "; supported: ", name, " of input's dtype or float32");
  const int64_t sample_stride = m.size(0) == 1 ? 0 : m.stride(0);
  const int64_t token_stride = m.dim() == 3 && m.size(1) != 1 ? m.stride(1) : 0;
  return {m.data_ptr(), sample_stride, token_stride};
}

// Two modulation tensors read by one kernel share a dtype.
inline void CheckSameDtype(const at::Tensor& a, const at::Tensor& b, const char* op,
                           const char* a_name, const char* b_name) {
  NORM_CHECK(a.scalar_type() == b.scalar_type(), op, ": ", a_name, " has dtype ",
             c10::toString(a.scalar_type()), " but ", b_name, " has ",
             c10::toString(b.scalar_type()), "; hint: pass both in one dtype");
}

}  // namespace norm_binding
