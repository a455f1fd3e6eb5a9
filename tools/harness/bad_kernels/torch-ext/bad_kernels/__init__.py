"""Deliberately wrong kernels that the kbuild harness must reject.

Only `rms_norm` and `copy` are correct; every `rms_norm_<flaw>` is wrong on purpose.
"""
import torch

from ._ops import add_op_namespace_prefix, ops

_RMS_NORM_OPS = [
    "rms_norm", "rms_norm_skips_last", "rms_norm_misses_tail", "rms_norm_shared_race", "rms_norm_nan",
    "rms_norm_writes_input", "rms_norm_reads_past_end", "rms_norm_side_stream", "rms_norm_memoized",
]


def rms_norm(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    out = torch.empty_like(x)
    ops.rms_norm(out, x, eps)
    return out


def copy(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    ops.copy(out, x)
    return out


# The ops write `out` in place and return nothing: their fake impls do nothing.
for _name in _RMS_NORM_OPS:
    torch.library.register_fake(add_op_namespace_prefix(_name))(lambda out, x, eps: None)
torch.library.register_fake(add_op_namespace_prefix("copy"))(lambda out, x: None)

__all__ = ["rms_norm", "copy"]
