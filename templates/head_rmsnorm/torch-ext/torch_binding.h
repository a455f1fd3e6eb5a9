#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

// Per-head RMSNorm over the last dimension (head_dim <= 256), a new tensor.
at::Tensor head_rms_norm(const at::Tensor& input,
                         const std::optional<at::Tensor>& weight, double eps);
