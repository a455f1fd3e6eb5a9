#pragma once

#include <ATen/core/Tensor.h>

#include <string_view>

// y = norm(x) * (1 + scale) + shift over x's last dimension, a new tensor;
// norm "layer" (LayerNorm without affine) or "rms" (RMSNorm without weight).
at::Tensor adaptive_norm(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                         std::string_view norm, double eps);

// out = x + gate * y, elementwise, a new tensor.
at::Tensor gated_residual(const at::Tensor& x, const at::Tensor& y, const at::Tensor& gate);
