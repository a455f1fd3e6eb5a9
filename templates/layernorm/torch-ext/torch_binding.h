#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

// y = (input - mean) * rsqrt(var + eps) * weight + bias over the last
// dimension (biased variance, as F.layer_norm), a new tensor.
at::Tensor layer_norm(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                      const std::optional<at::Tensor>& bias, double eps);
