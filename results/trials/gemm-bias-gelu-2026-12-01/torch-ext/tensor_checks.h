// Tensor checks shared by the norm bindings: each failure names the op, the
// tensor and the property, and says how to fix it.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>

#include "../linear_gelu_cuda/common/dtype.h"

namespace norm_binding {

// Every message is joined here into one std::string (numbers via
// std::to_string) and handed to TORCH_CHECK as a single const char*, which c10
// passes on as is: no std::ostream runs in this library. On the H200 machine,
// streaming an integer from a binding loaded by Python crashed (SIGSEGV in
// ostream::_M_insert<long>) instead of raising (2026-11-30). See the skill's
// references/troubleshooting.md, "Segfault exactly when an op rejects its
// input". (A lone std::string would still go through an ostringstream.)

inline std::string Num(int64_t value) { return std::to_string(value); }

// "[4, 8, 128]", the same text c10 prints for sizes and strides.
inline std::string ShapeText(c10::IntArrayRef dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

// Joins text pieces (const char* or std::string); a number does not compile
// here, so it cannot be streamed by accident: wrap it in Num or ShapeText.
template <typename... Pieces>
std::string Message(const Pieces&... pieces) {
  std::string text;
  (text.append(pieces), ...);
  return text;
}

// TORCH_CHECK(cond, Message(pieces...)) without any stream; the pieces are only
// evaluated when cond fails.
#define NORM_CHECK(cond, ...) TORCH_CHECK(cond, ::norm_binding::Message(__VA_ARGS__).c_str())

// A tensor seen as `rows` rows of `hidden` contiguous elements, rows
// `row_stride` elements apart (all leading dimensions flattened).
struct RowView {
  int64_t rows;
  int64_t hidden;
  int64_t row_stride;
};

inline RowView AsRows(const at::Tensor& t, const char* op, const char* name) {
  NORM_CHECK(t.dim() >= 1, op, ": ", name,
             " must have at least 1 dimension, got a 0-d tensor; "
             "hint: reshape it to [..., hidden]");
  const int64_t last = t.dim() - 1;
  const int64_t hidden = t.size(last);
  NORM_CHECK(hidden <= 1 || t.stride(last) == 1, op, ": ", name,
             " must be contiguous in its last dimension "
             "(stride(-1) == 1), got stride(-1) = ",
             Num(t.stride(last)), " for shape ", ShapeText(t.sizes()), "; hint: pass ", name,
             ".contiguous()");
  RowView v{1, hidden, hidden};
  bool have_stride = false;
  for (int64_t d = last - 1; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (!have_stride) {
      v.row_stride = t.stride(d);
      have_stride = true;
    } else {
      NORM_CHECK(t.stride(d) == v.row_stride * v.rows, op, ": ", name,
                 " rows must be evenly spaced (leading dimensions "
                 "must flatten into one), but stride(",
                 Num(d), ") = ", Num(t.stride(d)), " for shape ", ShapeText(t.sizes()),
                 " and strides ", ShapeText(t.strides()), "; hint: pass ", name, ".contiguous()");
    }
    v.rows *= t.size(d);
  }
  if (t.numel() == 0) v.rows = 0;
  return v;
}

inline kernels_common::DType KernelDType(const at::Tensor& t, const char* op, const char* name) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return kernels_common::DType::kFloat32;
    case at::kHalf:
      return kernels_common::DType::kFloat16;
    case at::kBFloat16:
      return kernels_common::DType::kBFloat16;
    default:
      NORM_CHECK(false, op, ": ", name, " has dtype ", c10::toString(t.scalar_type()),
                 "; supported: bfloat16, float16, float32");
  }
}

inline void CheckOnCuda(const at::Tensor& t, const at::Tensor& like, const char* op,
                        const char* name) {
  NORM_CHECK(t.is_cuda(), op, ": ", name, " must be a CUDA tensor, got ", t.device().str(),
             "; hint: move it with ", name, ".cuda()");
  NORM_CHECK(t.device() == like.device(), op, ": ", name, " is on ", t.device().str(),
             " but input is on ", like.device().str(), "; hint: put both on the same GPU");
}

// Weight: 1-D, `hidden` contiguous elements, input's dtype or float32.
inline void CheckWeight(const at::Tensor& w, const at::Tensor& input, int64_t hidden,
                        const char* op) {
  CheckOnCuda(w, input, op, "weight");
  NORM_CHECK(w.dim() == 1 && w.size(0) == hidden, op, ": weight must have shape [", Num(hidden),
             "] (the last dimension of input), got ", ShapeText(w.sizes()));
  NORM_CHECK(w.stride(0) == 1 || hidden <= 1, op, ": weight must be contiguous, got stride ",
             Num(w.stride(0)), "; hint: pass weight.contiguous()");
  NORM_CHECK(w.scalar_type() == input.scalar_type() || w.scalar_type() == at::kFloat, op,
             ": weight has dtype ", c10::toString(w.scalar_type()), " but input has ",
             c10::toString(input.scalar_type()), "; supported: weight of input's dtype or float32");
}

// The kernels' view of an optional weight: nullptr (and x's dtype) if absent.
struct WeightArg {
  const void* ptr;
  kernels_common::DType dtype;
};

inline WeightArg OptionalWeight(const std::optional<at::Tensor>& w, const at::Tensor& input,
                                int64_t hidden, const char* op) {
  if (!w.has_value()) return {nullptr, KernelDType(input, op, "input")};
  CheckWeight(*w, input, hidden, op);
  return {w->data_ptr(), KernelDType(*w, op, "weight")};
}

// Written tensors must not alias themselves across rows.
inline void CheckWritableRows(const RowView& v, const char* op, const char* name) {
  NORM_CHECK(v.rows <= 1 || v.row_stride >= v.hidden, op, ": ", name,
             " is written in place, so its rows must not overlap, "
             "got row stride ",
             Num(v.row_stride), " < hidden ", Num(v.hidden), "; hint: pass a clone");
}

inline void CheckLaunch(cudaError_t status, const char* op) {
  NORM_CHECK(
      status == cudaSuccess, op, ": kernel launch failed: ", cudaGetErrorString(status),
      status == cudaErrorInvalidValue ? " (unsupported dtype or size; see the checks above)" : "");
}

}  // namespace norm_binding
