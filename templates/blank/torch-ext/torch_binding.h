// The ops this extension registers with the torch dispatcher (schemas in
// torch_binding.cpp). Python reaches them as ops.scale_add / ops.scale_add_out.
#pragma once

#include <ATen/core/Tensor.h>

// out = x * alpha + y into a new tensor shaped like x.
at::Tensor scale_add(const at::Tensor& x, const at::Tensor& y, double alpha);

// out = x * alpha + y into `out` (may be x or y itself).
void scale_add_out(at::Tensor& out, const at::Tensor& x, const at::Tensor& y, double alpha);
