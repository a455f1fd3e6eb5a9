"""LayerNorm for CUDA: y = (x - mean) / sqrt(var + eps) * weight + bias.

One pass over x (16-byte loads, row kept in registers, fp32 statistics:
the mean, then the squared deviations from it). Matches
torch.nn.functional.layer_norm over the last dimension. Works under
torch.compile: the op has a fake implementation.
"""

from typing import Optional

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["LayerNorm", "layer_norm"]


def layer_norm(
    input: torch.Tensor,
    weight: Optional[torch.Tensor] = None,
    bias: Optional[torch.Tensor] = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    """Layer-normalizes `input` over its last dimension.

    Args:
        input: [..., hidden] CUDA tensor, bfloat16, float16 or float32. The
            last dimension must be contiguous; rows may be strided evenly.
        weight: optional [hidden] tensor of input's dtype or float32.
        bias: optional [hidden] tensor, of weight's dtype when both are given.
        eps: added to the variance before the reciprocal square root.

    Returns:
        A new contiguous tensor with input's shape and dtype.
    """
    refuse_grad("layer_norm", input, weight, bias)
    return ops.layer_norm(input, weight, bias, eps)


@torch.library.register_fake(add_op_namespace_prefix("layer_norm"))
def _layer_norm_fake(input, weight, bias, eps):
    return torch.empty(input.shape, dtype=input.dtype, device=input.device)


class LayerNorm(torch.nn.Module):
    """Drop-in for torch.nn.LayerNorm over the last dimension (inference).

    Keeps `weight`, `bias` and `eps` under nn.LayerNorm's names, so
    `forward` also works when bound onto an existing nn.LayerNorm.
    """

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if not isinstance(normalized_shape, int):
            (normalized_shape,) = normalized_shape  # the last dimension only
        self.normalized_shape = (normalized_shape,)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        options = {"device": device, "dtype": dtype}
        if elementwise_affine:
            self.weight = torch.nn.Parameter(torch.ones(normalized_shape, **options))
        else:
            self.register_parameter("weight", None)
        if elementwise_affine and bias:
            self.bias = torch.nn.Parameter(torch.zeros(normalized_shape, **options))
        else:
            self.register_parameter("bias", None)

    @classmethod
    def from_module(cls, module: torch.nn.LayerNorm) -> "LayerNorm":
        """Builds a layer sharing `module`'s weight, bias and eps."""
        (hidden,) = module.normalized_shape
        layer = cls(hidden, module.eps, elementwise_affine=False)
        layer.weight = module.weight
        layer.bias = module.bias
        return layer

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return layer_norm(hidden_states, self.weight, self.bias, self.eps)
