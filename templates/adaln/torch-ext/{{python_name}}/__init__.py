"""DiT block ops for CUDA: the adaptive norm and the gated residual.

    adaptive_norm:  y = norm(x) * (1 + scale) + shift
    gated_residual: out = x + gate * y

norm is a LayerNorm without affine parameters or an RMSNorm without weight
(LTX-Video's blocks: RMSNorm, eps 1e-6; DiT / PixArt and LTX-Video's final
norm: LayerNorm, eps 1e-6). The modulation (scale, shift, gate) is per
sample ([batch, hidden]) or per token ([batch, tokens, hidden]); views such
as the chunks of a [batch, tokens, 6, hidden] tensor are read in place.
Works under torch.compile: both ops have fake implementations.
"""

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["adaptive_norm", "gated_residual"]


def adaptive_norm(
    x: torch.Tensor,
    scale: torch.Tensor,
    shift: torch.Tensor,
    norm: str = "rms",
    eps: float = 1e-6,
) -> torch.Tensor:
    """Normalizes `x` over its last dimension, then modulates it.

    Args:
        x: [batch, tokens, hidden] CUDA tensor, bfloat16, float16 or float32;
            the last dimension contiguous, rows evenly strided.
        scale, shift: [batch, hidden] or [batch, 1, hidden] (per sample), or
            [batch, tokens, hidden] (per token); a batch of 1 broadcasts. Of
            x's dtype or float32 (both the same), last dimension contiguous.
        norm: "layer" (x - mean) * rsqrt(var + eps), or "rms"
            x * rsqrt(mean(x^2) + eps).
        eps: added to the variance (or mean of squares).

    Returns:
        A new contiguous tensor with x's shape and dtype (computed in
        float32, rounded once).
    """
    refuse_grad("adaptive_norm", x, scale, shift)
    return ops.adaptive_norm(x, scale, shift, norm, eps)


def gated_residual(x: torch.Tensor, y: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    """Returns x + gate * y (the residual update of a DiT block).

    Args:
        x, y: [batch, tokens, hidden] CUDA tensors of one dtype (bfloat16,
            float16 or float32); last dimension contiguous.
        gate: per sample or per token, as adaptive_norm's scale.
    """
    refuse_grad("gated_residual", x, y, gate)
    return ops.gated_residual(x, y, gate)


@torch.library.register_fake(add_op_namespace_prefix("adaptive_norm"))
def _adaptive_norm_fake(x, scale, shift, norm, eps):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


@torch.library.register_fake(add_op_namespace_prefix("gated_residual"))
def _gated_residual_fake(x, y, gate):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)
