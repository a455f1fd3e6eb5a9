#pragma once

#include <ATen/core/Tensor.h>

// residual += input; input = rms_norm(residual) * weight, both in place.
void fused_add_rms_norm(at::Tensor& input, at::Tensor& residual,
                        const at::Tensor& weight, double eps);
