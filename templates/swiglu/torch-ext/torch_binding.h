#pragma once

#include <ATen/core/Tensor.h>

// silu(gate) * up for x = [..., 2d]: gate = x[..., :d] when gate_first, else
// x[..., d:]; up the other half. A new [..., d] tensor.
at::Tensor swiglu(const at::Tensor& x, bool gate_first);

// silu(gate) * up for two [..., d] tensors. A new [..., d] tensor.
at::Tensor silu_mul(const at::Tensor& gate, const at::Tensor& up);
