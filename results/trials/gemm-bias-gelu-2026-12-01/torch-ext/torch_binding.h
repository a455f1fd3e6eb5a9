#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

// C = gelu_tanh(a @ b (+ bias on every row)): fp32 [m, k] x [k, n] -> a new [m, n].
at::Tensor linear_gelu(const at::Tensor& a, const at::Tensor& b,
                       const std::optional<at::Tensor>& bias);
