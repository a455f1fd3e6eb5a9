#pragma once

#include <ATen/core/Tensor.h>

// Per-token cross-entropy forward: float32 loss of shape logits.shape[:-1],
// logsumexp(logits[t]) - logits[t, target[t]], 0 where target == ignore_index.
at::Tensor cross_entropy(const at::Tensor& logits, const at::Tensor& target,
                         int64_t ignore_index);
