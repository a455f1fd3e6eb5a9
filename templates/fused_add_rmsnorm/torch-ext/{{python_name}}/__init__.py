"""Fused residual add + RMSNorm for CUDA, in place:

    residual += input
    input = residual * rsqrt(mean(residual^2, -1) + eps) * weight

One pass: each tensor is read once and written once. Works under
torch.compile: the op is registered as mutating both tensors and has a fake
implementation.
"""

from typing import Tuple

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["FusedAddRMSNorm", "fused_add_rms_norm"]


def fused_add_rms_norm(
    input: torch.Tensor,
    residual: torch.Tensor,
    weight: torch.Tensor,
    eps: float = 1e-6,
) -> None:
    """Adds `input` into `residual`, then writes the RMS-normalized sum,
    times `weight`, into `input`. Both tensors are updated in place.

    Args:
        input: [..., hidden] CUDA tensor, bfloat16, float16 or float32; the
            last dimension contiguous, rows evenly strided.
        residual: same shape and dtype as input.
        weight: [hidden] tensor of input's dtype or float32.
        eps: added to the mean of squares before the reciprocal square root.
    """
    refuse_grad("fused_add_rms_norm", input, residual, weight)
    ops.fused_add_rms_norm(input, residual, weight, eps)


@torch.library.register_fake(add_op_namespace_prefix("fused_add_rms_norm"))
def _fused_add_rms_norm_fake(input, residual, weight, eps):
    return None


class FusedAddRMSNorm(torch.nn.Module):
    """RMSNorm with the residual add folded in (vLLM-style layer).

    `forward(x, residual)` returns `(normalized, new_residual)`; both are the
    inputs' own storage, updated in place.
    """

    def __init__(self, hidden_size: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        self.variance_epsilon = eps
        self.weight = torch.nn.Parameter(
            torch.ones(hidden_size, device=device, dtype=dtype)
        )

    def forward(
        self, x: torch.Tensor, residual: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        fused_add_rms_norm(x, residual, self.weight, self.variance_epsilon)
        return x, residual
