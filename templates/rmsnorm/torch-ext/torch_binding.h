#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

// y = input * rsqrt(mean(input^2, -1) + eps) * weight, a new tensor.
at::Tensor rms_norm(const at::Tensor& input,
                    const std::optional<at::Tensor>& weight, double eps);
