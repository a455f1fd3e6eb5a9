"""Fused Linear + bias + GELU (tanh) in fp32 on CUDA cores.

y = gelu(x @ w + b, approximate="tanh"), FFMA only (no TF32, no tensor
cores): the arithmetic of at::addmm on float32 with TF32 off followed by
at::gelu(approximate="tanh"), in one kernel. Works under torch.compile: the
op has a fake implementation. Inference only: inputs that require grad are
refused (the op has no backward).
"""

from typing import Optional

import torch

from ._ops import add_op_namespace_prefix, ops

__all__ = ["linear_gelu"]


def linear_gelu(
    x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """Returns gelu_tanh(x @ w (+ bias added to every row)) as a new float32 tensor.

    Args:
        x: [m, k] float32 CUDA tensor with contiguous rows (stride(1) == 1);
            rows may be any distance apart. A transposed view is refused:
            pass x.contiguous().
        w: [k, n] float32 CUDA tensor, the same layout rule (an nn.Linear
            weight is [n, k]: pass weight.t().contiguous() once, not w.t()).
        bias: optional [n] contiguous float32 tensor.

    Returns:
        A new contiguous [m, n] float32 tensor.
    """
    if torch.is_grad_enabled() and any(
        t is not None and t.requires_grad for t in (x, w, bias)
    ):
        raise RuntimeError(
            "linear_gelu has no backward (inference only): call it under "
            "torch.no_grad() or pass tensors that do not require grad"
        )
    return ops.linear_gelu(x, w, bias)


@torch.library.register_fake(add_op_namespace_prefix("linear_gelu"))
def _linear_gelu_fake(a, b, bias=None):
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "linear_gelu: a and b must be 2-D")
    torch._check(
        a.shape[1] == b.shape[0],
        lambda: f"linear_gelu: a is {tuple(a.shape)} and b is {tuple(b.shape)}; "
        "a.size(1) must equal b.size(0)",
    )
    return torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
