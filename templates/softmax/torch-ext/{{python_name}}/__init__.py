"""Softmax for CUDA over the last dimension: exp(x - max) / sum(exp(x - max)).

float32 math for bfloat16, float16 and float32 inputs; the row stays in
registers up to 32768 bf16 elements, so x is read once. -inf entries (masked
positions) give 0; a row that is -inf everywhere gives NaN, as torch.softmax.
Works under torch.compile: the op has a fake implementation.
"""

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["softmax"]


def softmax(input: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax of `input` over its last dimension.

    Args:
        input: [..., cols] CUDA tensor, bfloat16, float16 or float32. The
            last dimension must be contiguous; rows may be strided evenly.
        dim: must name the last dimension (-1 or input.dim() - 1).

    Returns:
        A new contiguous tensor with input's shape and dtype.
    """
    if input.dim() > 0 and dim not in (-1, input.dim() - 1):
        raise ValueError(
            f"softmax: dim={dim}, but only the last dimension is supported "
            f"(dim=-1 for shape {tuple(input.shape)}); "
            "hint: move it last with input.transpose(dim, -1)"
        )
    refuse_grad("softmax", input)
    return ops.softmax(input)


@torch.library.register_fake(add_op_namespace_prefix("softmax"))
def _softmax_fake(input):
    return torch.empty(input.shape, dtype=input.dtype, device=input.device)
