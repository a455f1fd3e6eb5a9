"""Pure-torch stand-ins with the kernels' Python APIs (the templates'
torch-ext/<name>/__init__.py), for checking on any device, without a GPU,
that a patch calls the right op with the right arguments: the patched model
with these must match the unpatched one. Not fast; not the kernels."""

from collections import Counter
from types import SimpleNamespace

import torch


def _rms_float(x, weight, eps):
    y = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
    return y if weight is None else y * weight.float()


def _rms(x, weight, eps):
    return _rms_float(x, weight, eps).to(x.dtype)


def rms_norm(input, weight=None, eps=1e-6):
    return _rms(input, weight, eps)


def fused_add_rms_norm(input, residual, weight, eps=1e-6):
    residual.add_(input)
    input.copy_(_rms(residual, weight, eps))


def _rotate(x, cos, sin, interleaved):
    if interleaved:
        x1, x2 = x.float().unflatten(-1, (-1, 2)).unbind(-1)
        rotated = torch.stack((-x2, x1), dim=-1).flatten(-2)
    else:
        x1, x2 = x.float().chunk(2, dim=-1)
        rotated = torch.cat((-x2, x1), dim=-1)
    return (x.float() * cos + rotated * sin).to(x.dtype)


def rope(q, k, cos, sin, interleaved=False, layout="bshd"):
    """cos / sin [s, d], [1, s, d] or [b, s, d] (one table for all heads)."""
    if cos.dim() == 2:
        cos, sin = cos[None], sin[None]
    head_axis = 2 if layout == "bshd" else 1
    cos = cos.float().unsqueeze(head_axis)
    sin = sin.float().unsqueeze(head_axis)
    q.copy_(_rotate(q, cos, sin, interleaved))
    k.copy_(_rotate(k, cos, sin, interleaved))
    return q, k


def qk_norm_rope(q, k, q_weight, k_weight, cos, sin, eps=1e-6, interleaved=False,
                 layout="bshd"):
    """Each head normalized, then rotated as `rope` does, in float32: one
    rounding, at the store, as the kernel does."""
    q_float, k_float = _rms_float(q, q_weight, eps), _rms_float(k, k_weight, eps)
    rope(q_float, k_float, cos, sin, interleaved, layout)
    q.copy_(q_float)
    k.copy_(k_float)
    return q, k


def qk_norm_rope_to_cache(q, k, q_weight, k_weight, cos, sin, k_cache, cache_length,
                          eps=1e-6, interleaved=False, layout="bshd"):
    """qk_norm_rope on q in place and on a copy of k, whose token s goes to
    slot cache_length + s of k_cache [b, h, slots, d]; tokens past the last
    slot are dropped, as the kernel drops them."""
    k = k.clone()
    qk_norm_rope(q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout)
    k_heads_first = k if layout == "bhsd" else k.transpose(1, 2)
    slots = torch.arange(k_heads_first.shape[2], device=k.device) + cache_length.reshape(())
    kept = slots < k_cache.shape[2]
    k_cache.index_copy_(2, slots[kept], k_heads_first[:, :, kept])
    return q, k_cache


def silu_mul(gate, up):
    return (torch.nn.functional.silu(gate.float()) * up.float()).to(gate.dtype)


def qwen3_kernels():
    """The stand-ins of the four Qwen3 kernels, keyed like kernels_loader's."""
    return {
        "rmsnorm": SimpleNamespace(rms_norm=rms_norm),
        "fused_add_rmsnorm": SimpleNamespace(fused_add_rms_norm=fused_add_rms_norm),
        "rope": SimpleNamespace(rope=rope, qk_norm_rope=qk_norm_rope,
                                qk_norm_rope_to_cache=qk_norm_rope_to_cache),
        "swiglu": SimpleNamespace(silu_mul=silu_mul),
    }


def rope_tables(q, k, cos, sin, interleaved=False, layout="bshd"):
    """`rope` for either table width the template takes: w = d (one table for
    every head) or w = heads * d (a table per head: diffusers' LTX-Video
    tables); q and k have the same head count in the second case."""
    d = q.shape[-1]
    if cos.shape[-1] == d:
        return rope(q, k, cos, sin, interleaved, layout)
    if cos.dim() == 2:
        cos, sin = cos[None], sin[None]
    heads = q.shape[2] if layout == "bshd" else q.shape[1]
    cos = cos.float().unflatten(-1, (heads, d))  # [b, s, heads, d]
    sin = sin.float().unflatten(-1, (heads, d))
    if layout == "bhsd":
        cos, sin = cos.transpose(1, 2), sin.transpose(1, 2)
    q.copy_(_rotate(q, cos, sin, interleaved))
    k.copy_(_rotate(k, cos, sin, interleaved))
    return q, k


def _per_token(param):
    """[batch, hidden] modulation -> [batch, 1, hidden] (broadcasts over tokens)."""
    return param[:, None] if param.dim() == 2 else param


def adaptive_norm(x, scale, shift, norm="rms", eps=1e-6):
    xf = x.float()
    if norm == "layer":
        xf = xf - xf.mean(-1, keepdim=True)
    elif norm != "rms":
        raise ValueError(f"norm must be 'layer' or 'rms', got {norm!r}")
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (y * (1 + _per_token(scale).float()) + _per_token(shift).float()).to(x.dtype)


def gated_residual(x, y, gate):
    return (x.float() + _per_token(gate).float() * y.float()).to(x.dtype)


def ltx_kernels():
    """The stand-ins of the three LTX-Video kernels, keyed like kernels_loader's."""
    return {
        "rmsnorm": SimpleNamespace(rms_norm=rms_norm),
        "rope": SimpleNamespace(rope=rope_tables),
        "adaln": SimpleNamespace(adaptive_norm=adaptive_norm, gated_residual=gated_residual),
    }


def count_calls(kernels):
    """The kernels with every function wrapped to count its calls: returns
    (the wrapped dict, the Counter of calls by function name)."""
    calls = Counter()

    def wrap(name, fn):
        def call(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return call

    wrapped = {t: SimpleNamespace(**{n: wrap(n, f) for n, f in vars(ns).items()})
               for t, ns in kernels.items()}
    return wrapped, calls
