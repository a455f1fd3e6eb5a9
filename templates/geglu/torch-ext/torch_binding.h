#pragma once

#include <ATen/core/Tensor.h>

#include <string>

// gelu(gate) * up for x = [..., 2d]: gate = x[..., :d] when gate_first, else
// x[..., d:] (diffusers' GEGLU); up the other half. approximate: "none" (erf)
// or "tanh", as F.gelu. A new [..., d] tensor.
at::Tensor geglu(const at::Tensor& x, bool gate_first, const std::string& approximate);

// gelu(gate) * up for two [..., d] tensors. A new [..., d] tensor.
at::Tensor gelu_mul(const at::Tensor& gate, const at::Tensor& up, const std::string& approximate);
