"""SwiGLU for CUDA: out = silu(gate) * up, silu(x) = x * sigmoid(x).

One pass (16-byte vectors, float32 math, rounded once). Two forms: `swiglu`
takes one [..., 2d] tensor (a fused gate/up projection's output) and
`silu_mul` two [..., d] tensors (transformers' Qwen3 / Llama MLP computes
act_fn(gate_proj(x)) * up_proj(x)). Works under torch.compile: both ops have
fake implementations.
"""

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = ["swiglu", "silu_mul"]


def swiglu(x: torch.Tensor, gate_first: bool = True) -> torch.Tensor:
    """silu(gate) * up for the halves of `x`.

    Args:
        x: [..., 2d] CUDA tensor, bfloat16, float16 or float32; the last
            dimension contiguous, rows evenly strided.
        gate_first: the gate (the half silu is applied to) is x[..., :d]
            (transformers, Liger); False: x[..., d:] (diffusers' GEGLU order).

    Returns:
        A new contiguous [..., d] tensor of x's dtype.
    """
    refuse_grad("swiglu", x)
    return ops.swiglu(x, gate_first)


def silu_mul(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """silu(gate) * up for two [..., d] tensors of one shape and dtype (each
    with a contiguous last dimension); a new contiguous [..., d] tensor."""
    refuse_grad("silu_mul", gate, up)
    return ops.silu_mul(gate, up)


@torch.library.register_fake(add_op_namespace_prefix("swiglu"))
def _swiglu_fake(x, gate_first=True):
    torch._check(x.shape[-1] % 2 == 0, lambda: "swiglu: x's last dimension must be even")
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2))


@torch.library.register_fake(add_op_namespace_prefix("silu_mul"))
def _silu_mul_fake(gate, up):
    torch._check(gate.shape == up.shape, lambda: "silu_mul: gate and up must have one shape")
    return gate.new_empty(gate.shape)
