"""Fused per-token cross-entropy forward for CUDA (LM-head logits).

loss[t] = logsumexp(logits[t]) - logits[t, target[t]] in float32 for
bfloat16, float16 and float32 logits, reading each logit exactly once;
loss[t] = 0 where target[t] == ignore_index. The same values as
F.cross_entropy(logits.float(), target, reduction="none",
ignore_index=ignore_index), returned as float32 whatever the logits' dtype.
Works under torch.compile: the op has a fake implementation. The backward is
plain PyTorch (softmax - one_hot, not fused).
"""

import torch

from ._ops import add_op_namespace_prefix, ops

__all__ = ["cross_entropy"]


def cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100
) -> torch.Tensor:
    """Per-token cross-entropy loss, like F.cross_entropy(reduction="none").

    Args:
        logits: [..., vocab] CUDA tensor, bfloat16, float16 or float32; the
            last dimension contiguous, the rows evenly strided (a view of a
            wider tensor works).
        target: int64 tensor of shape logits.shape[:-1], class indices in
            [0, vocab) or ignore_index. Any other value gives NaN for its
            token (a kernel cannot raise; F.cross_entropy asserts).
        ignore_index: targets equal to it give loss 0 and are not read.

    Returns:
        float32 tensor of shape logits.shape[:-1].
    """
    return ops.cross_entropy(logits, target, ignore_index)


@torch.library.register_fake(add_op_namespace_prefix("cross_entropy"))
def _cross_entropy_fake(logits, target, ignore_index=-100):
    torch._check(logits.dim() >= 1, lambda: "cross_entropy: logits must be [..., vocab]")
    torch._check(
        target.dtype == torch.int64,
        lambda: f"cross_entropy: target must be int64, got {target.dtype}",
    )
    torch._check(
        target.shape == logits.shape[:-1],
        lambda: f"cross_entropy: target must have shape {tuple(logits.shape[:-1])}, "
        f"got {tuple(target.shape)}",
    )
    return logits.new_empty(logits.shape[:-1], dtype=torch.float32)


def _setup_context(ctx, inputs, output):
    logits, target, ignore_index = inputs
    ctx.save_for_backward(logits, target)
    ctx.ignore_index = ignore_index


def _backward(ctx, grad):
    # d loss[t] / d logits[t] = softmax(logits[t]) - one_hot(target[t]), 0 for
    # ignored tokens; fp32 math, returned in the logits' dtype.
    logits, target = ctx.saved_tensors
    keep = target != ctx.ignore_index
    g = torch.softmax(logits.float(), dim=-1)
    safe = torch.where(keep, target, torch.zeros_like(target))
    g = g - torch.nn.functional.one_hot(safe, logits.shape[-1]).to(g.dtype)
    g = g * (grad.float() * keep.to(g.dtype)).unsqueeze(-1)
    return g.to(logits.dtype), None, None


torch.library.register_autograd(
    add_op_namespace_prefix("cross_entropy"), _backward, setup_context=_setup_context
)
