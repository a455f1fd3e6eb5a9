"""fp32 GEMM on CUDA cores: C = A @ B (+ bias on every row).

FFMA only (no TF32, no tensor cores): the arithmetic of torch.mm on float32
with TF32 off. Works under torch.compile: the op has a fake implementation.
"""

from typing import Optional

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["gemm"]


def gemm(
    a: torch.Tensor, b: torch.Tensor, bias: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """Returns a @ b (+ bias added to every row) as a new float32 tensor.

    Args:
        a: [m, k] float32 CUDA tensor with contiguous rows (stride(1) == 1);
            rows may be any distance apart. A transposed view is refused:
            pass a.contiguous().
        b: [k, n] float32 CUDA tensor, the same layout rule.
        bias: optional [n] contiguous float32 tensor.

    Returns:
        A new contiguous [m, n] float32 tensor.
    """
    refuse_grad("gemm", a, b, bias)
    return ops.gemm(a, b, bias)


@torch.library.register_fake(add_op_namespace_prefix("gemm"))
def _gemm_fake(a, b, bias=None):
    return torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
