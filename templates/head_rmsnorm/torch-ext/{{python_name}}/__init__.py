"""Per-head RMSNorm for CUDA (QK-norm): normalizes each head_dim-long row of
[tokens, heads, head_dim] (or any [..., head_dim], head_dim <= 256):

    y = x * rsqrt(mean(x^2, -1) + eps) * weight        weight: [head_dim]

A few lanes per row (8 / 16 / 32 for head_dim 64 / 128 / 256 in bf16) with
16-byte loads, so short rows still stream at memory speed. Works under
torch.compile: the op has a fake implementation.
"""

from typing import Optional

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["HeadRMSNorm", "head_rms_norm"]


def head_rms_norm(
    input: torch.Tensor, weight: Optional[torch.Tensor] = None, eps: float = 1e-6
) -> torch.Tensor:
    """RMS-normalizes each row of `input`'s last dimension (head_dim <= 256).

    Args:
        input: [..., head_dim] CUDA tensor, bfloat16, float16 or float32,
            e.g. q or k as [tokens, heads, head_dim]. The last dimension must
            be contiguous; rows may be strided evenly (a view of a fused qkv
            projection works when its rows are evenly spaced).
        weight: optional [head_dim] tensor of input's dtype or float32.
        eps: added to the mean of squares before the reciprocal square root.

    Returns:
        A new contiguous tensor with input's shape and dtype.
    """
    refuse_grad("head_rms_norm", input, weight)
    return ops.head_rms_norm(input, weight, eps)


@torch.library.register_fake(add_op_namespace_prefix("head_rms_norm"))
def _head_rms_norm_fake(input, weight, eps):
    return torch.empty(input.shape, dtype=input.dtype, device=input.device)


class HeadRMSNorm(torch.nn.Module):
    """QK-norm layer: RMSNorm over head_dim with a [head_dim] weight, like
    Qwen3's q_norm / k_norm (`weight`, `variance_epsilon`)."""

    def __init__(self, head_dim: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        self.variance_epsilon = eps
        self.weight = torch.nn.Parameter(
            torch.ones(head_dim, device=device, dtype=dtype)
        )

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        eps = getattr(self, "variance_epsilon", getattr(self, "eps", 1e-6))
        return head_rms_norm(hidden_states, self.weight, eps)
