"""Ops without a backward refuse autograd (SKILL.md: give every op a backward or refuse
grad): otherwise a training step would run them and get no gradient through them, silently.
Each template's Python package holds a copy as _no_backward.py (`kbuild init` copies the
link); give an op a backward with torch.library.register_autograd and drop its check."""

import torch


def refuse_grad(op: str, *tensors) -> None:
    """Raises when autograd would record `op`: grad mode is on and one of `tensors` (None
    allowed) requires grad. Under torch.no_grad() or torch.inference_mode() it never does;
    torch.compile traces it (no graph break)."""
    if not torch.is_grad_enabled():
        return
    for t in tensors:
        if t is not None and t.requires_grad:
            raise RuntimeError(
                f"{op} has no backward: call it under torch.no_grad() or torch.inference_mode() "
                "(inference), or register one with torch.library.register_autograd (training)")
