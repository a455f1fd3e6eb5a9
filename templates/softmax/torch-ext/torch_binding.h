#pragma once

#include <ATen/core/Tensor.h>

// softmax(input, dim=-1) in float32, a new tensor of input's dtype.
at::Tensor softmax(const at::Tensor& input);
