"""GEGLU for CUDA: out = gelu(gate) * up, gelu exact (erf) or tanh-approximated.

One pass (16-byte vectors, float32 math, rounded once). Two forms: `geglu`
takes one [..., 2d] tensor (a projection's output; diffusers' GEGLU module
chunks it as hidden_states, gate, so pass gate_first=False there) and
`gelu_mul` two [..., d] tensors. Works under torch.compile: both ops have fake
implementations.
"""

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["geglu", "gelu_mul"]


def geglu(x: torch.Tensor, gate_first: bool = True, approximate: str = "none") -> torch.Tensor:
    """gelu(gate) * up for the halves of `x`.

    Args:
        x: [..., 2d] CUDA tensor, bfloat16, float16 or float32; the last
            dimension contiguous, rows evenly strided.
        gate_first: the gate (the half gelu is applied to) is x[..., :d];
            False: x[..., d:] (diffusers.models.activations.GEGLU).
        approximate: "none" (erf, diffusers' GEGLU) or "tanh" (Liger's
            LigerGELUMulFunction, Gemma), as in F.gelu.

    Returns:
        A new contiguous [..., d] tensor of x's dtype.
    """
    refuse_grad("geglu", x)
    return ops.geglu(x, gate_first, approximate)


def gelu_mul(gate: torch.Tensor, up: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """gelu(gate) * up for two [..., d] tensors of one shape and dtype (each
    with a contiguous last dimension); a new contiguous [..., d] tensor."""
    refuse_grad("gelu_mul", gate, up)
    return ops.gelu_mul(gate, up, approximate)


@torch.library.register_fake(add_op_namespace_prefix("geglu"))
def _geglu_fake(x, gate_first=True, approximate="none"):
    torch._check(x.shape[-1] % 2 == 0, lambda: "geglu: x's last dimension must be even")
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2))


@torch.library.register_fake(add_op_namespace_prefix("gelu_mul"))
def _gelu_mul_fake(gate, up, approximate="none"):
    torch._check(gate.shape == up.shape, lambda: "gelu_mul: gate and up must have one shape")
    return gate.new_empty(gate.shape)
