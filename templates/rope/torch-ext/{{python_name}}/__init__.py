"""Rotary position embedding (RoPE) of q and k for CUDA, in place, one launch.

    x = x * cos + rotate(x) * sin,   rotate(x) = (-x2, x1) for each pair (x1, x2)

Pairs are (i, i + d/2) (half-split, Llama / Qwen3 `rotate_half`) or
(2i, 2i + 1) (interleaved, GPT-J / LTX-Video). cos / sin come from tensors
(`rope`), from integer positions (`rope_positions`), or from LTX-Video's
frame / height / width grid (`rope_ltx_video`); `qk_norm_rope` first
normalizes each head (Qwen3's QK-norm), in the same launch, and
`qk_norm_rope_to_cache` writes k's result into a key cache instead. q and k
are rotated in place and returned; the ops are registered as mutating what
they write, with fake implementations, so they work under torch.compile.
"""

from typing import List, Optional, Sequence, Tuple

import torch

from ._no_backward import refuse_grad
from ._ops import add_op_namespace_prefix, ops

__all__ = [
    "ltx_video_coord_scale",
    "qk_norm_rope",
    "qk_norm_rope_to_cache",
    "rope",
    "rope_ltx_video",
    "rope_positions",
]


def rope(
    q: torch.Tensor,
    k: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    interleaved: bool = False,
    layout: str = "bshd",
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Rotates q and k in place by the given cos / sin tables.

    Args:
        q: [b, s, hq, d] ("bshd") or [b, hq, s, d] ("bhsd") CUDA tensor,
            bfloat16, float16 or float32; head_dim contiguous, any other
            strides (a slice of a fused qkv tensor works).
        k: as q, with its own head count (grouped-query attention).
        cos, sin: [s, w], [1, s, w] or [b, s, w], float32 or q's dtype;
            w = d (one table for every head: transformers' cos / sin) or
            hq * d (a table per head: diffusers' LTX-Video cos / sin).
        interleaved: pairs (2i, 2i + 1) instead of (i, i + d/2).
        layout: "bshd" or "bhsd".

    Returns:
        (q, k), rotated in place.
    """
    refuse_grad("rope", q, k, cos, sin)
    ops.rope(q, k, cos, sin, interleaved, layout)
    return q, k


def qk_norm_rope(
    q: torch.Tensor,
    k: torch.Tensor,
    q_weight: torch.Tensor,
    k_weight: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    eps: float = 1e-6,
    interleaved: bool = False,
    layout: str = "bshd",
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Normalizes each head of q and k, then rotates them, in place, in one
    launch: x = rope(x * rsqrt(mean(x^2) + eps) * w), w = q_weight for q's
    heads, k_weight for k's (Qwen3's q_norm and k_norm, then
    apply_rotary_pos_emb). The same values as rms_norm on each (rounded to
    q's dtype) followed by `rope`, with one read and one write of q and k
    instead of three.

    Args:
        q, k, cos, sin, interleaved, layout: as in `rope`.
        q_weight, k_weight: [head_dim], q's dtype or float32 (both the same).
        eps: the norms' epsilon (`rms_norm_eps` of the model's config).

    Needs 16-byte aligned tensors and a head_dim of 64, 128 or 256 (any power
    of two from 16 bytes of pairs up to 32 lanes); else it raises, and
    rms_norm on each followed by `rope` does the same work.
    """
    refuse_grad("qk_norm_rope", q, k, q_weight, k_weight, cos, sin)
    ops.qk_norm_rope(q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout)
    return q, k


def qk_norm_rope_to_cache(
    q: torch.Tensor,
    k: torch.Tensor,
    q_weight: torch.Tensor,
    k_weight: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
    k_cache: torch.Tensor,
    cache_length: torch.Tensor,
    eps: float = 1e-6,
    interleaved: bool = False,
    layout: str = "bshd",
) -> Tuple[torch.Tensor, torch.Tensor]:
    """`qk_norm_rope`, with k's result written into a key cache instead of
    into k (k is only read): token s of k goes to slot cache_length + s of
    k_cache, in the same launch. This is a decode step's cache write
    (transformers' StaticCache `keys.index_copy_(2, cache_length +
    arange(s), k)`) at no launch of its own.

    Args:
        q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout: as in
            `qk_norm_rope`; q is rotated in place.
        k_cache: [b, k heads, slots, head_dim] in q's dtype (StaticCache's
            layer.keys), contiguous in head_dim and 16-byte aligned.
        cache_length: int64 tensor of one element on q's device, the slots
            already filled (StaticCache's layer.cumulative_length). Read by
            the kernel, so the step stays free of host syncs; the caller
            advances it. Slots at or past the cache's end are not written.

    Returns:
        (q, k_cache).
    """
    refuse_grad("qk_norm_rope_to_cache", q, k, q_weight, k_weight, cos, sin, k_cache)
    ops.qk_norm_rope_to_cache(q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout,
                              k_cache, cache_length)
    return q, k_cache


def rope_positions(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: torch.Tensor,
    theta: float = 10000.0,
    interleaved: bool = False,
    layout: str = "bshd",
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Rotates q and k in place by angle_i = positions * theta^(-2i / d),
    computed in the kernel (transformers' default rope: Qwen3 uses
    theta = 1e6, Llama 2 10000).

    Args:
        q, k: as in `rope`.
        positions: int64 [s], [1, s] or [b, s].
        theta: the rope base (`rope_theta` of the model's config).
    """
    refuse_grad("rope_positions", q, k, positions)
    ops.rope_positions(q, k, positions, theta, interleaved, layout)
    return q, k


def ltx_video_coord_scale(
    rope_interpolation_scale: Optional[Sequence[float]] = None,
    patch_size: int = 1,
    patch_size_t: int = 1,
    base_num_frames: int = 20,
    base_height: int = 2048,
    base_width: int = 2048,
) -> List[float]:
    """What multiplies the frame, row and column index of a latent in
    diffusers' LTXVideoRotaryPosEmbed (defaults: LTXVideoTransformer3DModel's).
    Without rope_interpolation_scale the indices are used as they are."""
    if rope_interpolation_scale is None:
        return [1.0, 1.0, 1.0]
    s = [float(v) for v in rope_interpolation_scale]
    return [
        s[0] * patch_size_t / base_num_frames,
        s[1] * patch_size / base_height,
        s[2] * patch_size / base_width,
    ]


def rope_ltx_video(
    q: torch.Tensor,
    k: torch.Tensor,
    frames: int,
    height: int,
    width: int,
    rope_interpolation_scale: Optional[Sequence[float]] = None,
    theta: float = 10000.0,
    layout: str = "bshd",
    **coord_kwargs,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """LTX-Video's rotary embedding (diffusers LTXVideoRotaryPosEmbed and
    apply_rotary_emb), cos / sin computed in the kernel.

    The rotary channels are all hq * d channels of a token (q.flatten(2) in
    diffusers), interleaved pairs; tokens are the frames x height x width
    latent grid, frames outermost. `rope_interpolation_scale` as the LTX
    pipelines pass it: (temporal compression / frame_rate, spatial
    compression, spatial compression). coord_kwargs: patch and base sizes
    (see `ltx_video_coord_scale`).
    """
    scale = ltx_video_coord_scale(rope_interpolation_scale, **coord_kwargs)
    refuse_grad("rope_ltx_video", q, k)
    ops.rope_ltx_video(q, k, frames, height, width, scale, theta, layout)
    return q, k


@torch.library.register_fake(add_op_namespace_prefix("rope"))
def _rope_fake(q, k, cos, sin, interleaved, layout):
    return None


@torch.library.register_fake(add_op_namespace_prefix("rope_positions"))
def _rope_positions_fake(q, k, positions, theta, interleaved, layout):
    return None


@torch.library.register_fake(add_op_namespace_prefix("rope_ltx_video"))
def _rope_ltx_video_fake(q, k, frames, height, width, coord_scale, theta, layout):
    return None


@torch.library.register_fake(add_op_namespace_prefix("qk_norm_rope"))
def _qk_norm_rope_fake(q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout):
    return None


@torch.library.register_fake(add_op_namespace_prefix("qk_norm_rope_to_cache"))
def _qk_norm_rope_to_cache_fake(q, k, q_weight, k_weight, cos, sin, eps, interleaved, layout,
                                k_cache, cache_length):
    return None
