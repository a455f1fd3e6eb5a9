// The gated activations' bindings (swiglu and geglu): their inputs seen as
// rows of d gate and d up elements, from one [..., 2d] tensor or two [..., d]
// tensors, checked with messages that name the op, the tensor and the fix
// (tensor_checks.h); and the call of a launcher into a fresh [..., d] output.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>

#include <cstdint>
#include <vector>

#include "../{{python_name}}_cuda/common/dtype.h"
#include "tensor_checks.h"

namespace gated_binding {

using norm_binding::Num;
using norm_binding::ShapeText;

struct GatedInputs {
  const at::Tensor* like;  // the tensor whose leading dimensions out keeps
  const void* gate;
  const void* up;
  kernels_common::DType dtype;
  int64_t rows;
  int64_t d;
  int64_t gate_stride;
  int64_t up_stride;
};

// x: [..., 2d]; the gate is its first half when gate_first (transformers,
// Liger), else its second (diffusers' GEGLU: hidden_states, gate = chunk(2)).
inline GatedInputs HalvesOf(const at::Tensor& x, bool gate_first, const char* op) {
  norm_binding::CheckOnCuda(x, x, op, "x");
  const kernels_common::DType dtype = norm_binding::KernelDType(x, op, "x");
  const norm_binding::RowView rows = norm_binding::AsRows(x, op, "x");
  NORM_CHECK(rows.hidden % 2 == 0, op, ": x's last dimension holds the gate and up halves, so it must be even, got ",
             Num(rows.hidden), " for shape ", ShapeText(x.sizes()),
             "; hint: pass gate and up as two tensors to the two-tensor op");
  const int64_t d = rows.hidden / 2;
  const auto* base = static_cast<const char*>(x.data_ptr());
  const int64_t half_bytes = d * kernels_common::DTypeSize(dtype);
  const void* first = base;
  const void* second = base + half_bytes;
  return {&x,        gate_first ? first : second, gate_first ? second : first, dtype, rows.rows, d,
          rows.row_stride, rows.row_stride};
}

// gate and up: [..., d] of one shape, dtype and device.
inline GatedInputs PairOf(const at::Tensor& gate, const at::Tensor& up, const char* op) {
  norm_binding::CheckOnCuda(gate, gate, op, "gate");
  norm_binding::CheckOnCuda(up, gate, op, "up");
  const kernels_common::DType dtype = norm_binding::KernelDType(gate, op, "gate");
  NORM_CHECK(up.scalar_type() == gate.scalar_type(), op, ": up has dtype ",
             c10::toString(up.scalar_type()), " but gate has ", c10::toString(gate.scalar_type()),
             "; hint: cast both to one dtype");
  NORM_CHECK(up.sizes() == gate.sizes(), op, ": up has shape ", ShapeText(up.sizes()),
             " but gate has ", ShapeText(gate.sizes()), "; broadcasting is not supported");
  const norm_binding::RowView g = norm_binding::AsRows(gate, op, "gate");
  const norm_binding::RowView u = norm_binding::AsRows(up, op, "up");
  return {&gate, gate.data_ptr(), up.data_ptr(), dtype, g.rows, g.hidden, g.row_stride,
          u.row_stride};
}

// A new contiguous [..., d] tensor with the input's leading dimensions,
// filled by launch(out_ptr, stream) -> cudaError_t unless empty.
template <typename Launch>
at::Tensor RunGated(const GatedInputs& in, const char* op, Launch&& launch) {
  std::vector<int64_t> shape = in.like->sizes().vec();
  shape.back() = in.d;
  at::Tensor out = at::empty(shape, in.like->options());
  if (in.rows == 0 || in.d == 0) return out;
  const c10::cuda::CUDAGuard guard(in.like->device());
  norm_binding::CheckLaunch(launch(out.data_ptr(), at::cuda::getCurrentCUDAStream()), op);
  return out;
}

}  // namespace gated_binding
