"""{{name}}: out = x * alpha + y as a CUDA kernel registered with the torch dispatcher.

Works eagerly and under torch.compile (fake implementations are registered
below, so the compiler can trace shapes without running the kernel).
"""

from typing import Optional

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["scale_add", "ops"]


def scale_add(
    x: torch.Tensor,
    y: torch.Tensor,
    alpha: float = 1.0,
    out: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """Return ``x * alpha + y``, computed in float32 and rounded once.

    Args:
        x: contiguous CUDA tensor, float32, float16 or bfloat16.
        y: same shape, dtype and device as ``x``.
        alpha: the scale applied to ``x``.
        out: optional destination with the same shape, dtype and device; it may be
            ``x`` or ``y`` itself (in-place update).

    Returns:
        ``out`` when given, otherwise a new tensor shaped like ``x``.
    """
    refuse_grad("scale_add", x, y, out)
    if out is None:
        return ops.scale_add(x, y, alpha)
    ops.scale_add_out(out, x, y, alpha)
    return out


@torch.library.register_fake(add_op_namespace_prefix("scale_add"))
def _scale_add_fake(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    torch._check(x.shape == y.shape, lambda: "scale_add: x and y must have the same shape")
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.register_fake(add_op_namespace_prefix("scale_add_out"))
def _scale_add_out_fake(
    out: torch.Tensor, x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0
) -> None:
    torch._check(x.shape == y.shape, lambda: "scale_add: x and y must have the same shape")
    torch._check(out.shape == x.shape, lambda: "scale_add: out must have the shape of x")
