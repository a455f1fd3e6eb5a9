"""RMSNorm for CUDA: y = x * rsqrt(mean(x^2, -1) + eps) * weight.

One pass over x (16-byte loads, row kept in registers, fp32 accumulation).
Works under torch.compile: the op has a fake implementation.
"""

from typing import Optional

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["RMSNorm", "rms_norm"]


def rms_norm(
    input: torch.Tensor, weight: Optional[torch.Tensor] = None, eps: float = 1e-6
) -> torch.Tensor:
    """RMS-normalizes `input` over its last dimension.

    Args:
        input: [..., hidden] CUDA tensor, bfloat16, float16 or float32. The
            last dimension must be contiguous; rows may be strided evenly.
        weight: optional [hidden] tensor of input's dtype or float32.
        eps: added to the mean of squares before the reciprocal square root.

    Returns:
        A new contiguous tensor with input's shape and dtype.
    """
    refuse_grad("rms_norm", input, weight)
    return ops.rms_norm(input, weight, eps)


@torch.library.register_fake(add_op_namespace_prefix("rms_norm"))
def _rms_norm_fake(input, weight, eps):
    return torch.empty(input.shape, dtype=input.dtype, device=input.device)


class RMSNorm(torch.nn.Module):
    """Drop-in RMSNorm layer (transformers / diffusers style).

    Keeps `weight` and `variance_epsilon` like transformers' RMSNorm modules,
    so `forward` also works when bound onto an existing module instance.
    """

    def __init__(
        self,
        hidden_size: int,
        eps: float = 1e-6,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.variance_epsilon = eps
        if elementwise_affine:
            self.weight = torch.nn.Parameter(
                torch.ones(hidden_size, device=device, dtype=dtype)
            )
        else:
            self.register_parameter("weight", None)

    @classmethod
    def from_module(cls, module: torch.nn.Module) -> "RMSNorm":
        """Builds a layer sharing `module`'s weight and epsilon (read from
        `variance_epsilon` or `eps`)."""
        eps = getattr(module, "variance_epsilon", getattr(module, "eps", 1e-6))
        weight = getattr(module, "weight", None)
        hidden = weight.shape[0] if weight is not None else 0
        layer = cls(hidden, eps, elementwise_affine=False)
        layer.weight = weight
        return layer

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        eps = getattr(self, "variance_epsilon", getattr(self, "eps", 1e-6))
        return rms_norm(hidden_states, self.weight, eps)
