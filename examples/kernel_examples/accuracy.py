"""How the examples judge a patched bf16 model: its output and the unpatched
bf16 model's, each against the same weights and inputs in float32. Through
dozens of layers both drift by bf16 rounding (ours rounds once per fused op
where the library rounds several times), so neither matches exactly, while a
wrong kernel is off by O(1): the patched error may be at most
TOLERANCE_FACTOR times the library's own."""

import torch

TOLERANCE_FACTOR = 1.5


def rel_l2(a: torch.Tensor, b: torch.Tensor) -> float:
    """||a - b|| / ||b||, in float32."""
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def within_budget(patched_error: float, library_error: float) -> bool:
    return patched_error <= TOLERANCE_FACTOR * library_error
