"""Python baselines ("peers") that `kbuild bench` times against rope,
rope_positions, rope_ltx_video, rope on LTX-Video's tables, qk_norm_rope and
qk_norm_rope_to_cache.

After the C++ benchmark, kbuild times ours and every peer here in one Python
worker by the same rules and checks their values against reference() in
float64. BENCHMARKS is keyed by benchmark name (BenchSpec.name in
benchmarks/rope_bench.cpp): for each of its cases, inputs(case) gives the
positional arguments of ours(ops, ...), of every peer and, as float64
copies, of reference(...). A peer factory runs once; whatever it raises (a
package not installed) is reported as the peer's reason for being
unavailable. Every implementation returns (q, k) as [b, s, heads, d] (the
cache benchmark: (q, k_cache)): ours rotates them in place; transformers,
diffusers and torch.compile return new tensors; Liger rotates contiguous
copies.

Shapes: [b, s, q heads, k heads, d] for Qwen3 (transformers' cos / sin of
theta 1e6 in q's dtype, half-split pairs); [b, frames, height, width,
heads, d] for LTX-Video (diffusers' float32 cos / sin, interleaved pairs).
"""
import inspect
import math
import types

import torch

QWEN_THETA = 1e6
# LTXVideoTransformer3DModel's rope and the LTX pipeline's
# rope_interpolation_scale at 25 fps: (8 / 25, 32, 32).
LTX_THETA = 10000.0
LTX_SCALE = (8 / 25, 32.0, 32.0)
LTX_BASE = (20, 2048, 2048)  # base_num_frames, base_height, base_width


def compiled(fn):
    # dynamic=False compiles one graph per shape and dtype; past the default
    # recompile limit (8) torch.compile would quietly run eager PyTorch.
    torch._dynamo.config.recompile_limit = max(
        torch._dynamo.config.recompile_limit, 256)
    return torch.compile(fn, dynamic=False)


# Qwen3: transformers' rotate_half convention.

def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_tables(q, k, cos, sin):  # cos / sin [b, s, d]; q, k [b, s, h, d]
    cos, sin = cos.unsqueeze(2), sin.unsqueeze(2)
    return (q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin)


def qwen_tables(positions, d, theta, dtype):
    # Qwen3RotaryEmbedding.forward: float32 angles, cos / sin in q's dtype.
    exponents = torch.arange(0, d, 2, dtype=torch.int64,
                             device=positions.device).float() / d
    inv_freq = 1.0 / (theta ** exponents)
    freqs = positions.float()[..., None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def qwen_qk(case):
    b, s, hq, hk, d = case.shape
    q = torch.randn(b, s, hq, d, dtype=case.dtype, device=case.device)
    k = torch.randn(b, s, hk, d, dtype=case.dtype, device=case.device)
    # Prefill: 0..s-1; decode (s == 1): one position up to 32k per sequence.
    if s == 1:
        positions = torch.randint(0, 32768, (b, 1), device=case.device)
    else:
        positions = torch.arange(s, device=case.device).expand(b, s).contiguous()
    return q, k, positions


def table_inputs(case):
    q, k, positions = qwen_qk(case)
    cos, sin = qwen_tables(positions, q.shape[-1], QWEN_THETA, q.dtype)
    return (q, k, cos, sin)


def positions_inputs(case):
    return qwen_qk(case) + (QWEN_THETA,)


def positions_reference(q, k, positions, theta):
    d = q.shape[-1]
    exponents = torch.arange(0, d, 2, dtype=torch.float64, device=q.device) / d
    freqs = positions.double()[..., None] * theta ** -exponents
    emb = torch.cat((freqs, freqs), dim=-1)
    return apply_tables(q, k, emb.cos(), emb.sin())


def liger_tables():
    # LigerRopeFunction takes [b, h, s, d] and reads cos[..., :d/2]
    # (transformers' tables repeat their halves).
    from liger_kernel.ops.rope import LigerRopeFunction

    def call(q, k, cos, sin):
        q2, k2 = LigerRopeFunction.apply(
            q.transpose(1, 2), k.transpose(1, 2), cos, sin)
        return (q2.transpose(1, 2), k2.transpose(1, 2))

    return call


def transformers_tables():
    from transformers.models.qwen3.modeling_qwen3 import apply_rotary_pos_emb

    return lambda q, k, cos, sin: apply_rotary_pos_emb(
        q, k, cos, sin, unsqueeze_dim=2)


def transformers_positions():
    from transformers import Qwen3Config
    from transformers.models.qwen3.modeling_qwen3 import (
        Qwen3RotaryEmbedding, apply_rotary_pos_emb)

    modules = {}

    def call(q, k, positions, theta):
        key = (q.shape[-1], theta, q.device)
        if key not in modules:
            if "rope_parameters" in inspect.signature(Qwen3Config).parameters:
                rope = {"rope_parameters": {"rope_type": "default",
                                            "rope_theta": theta}}
            else:
                rope = {"rope_theta": theta}
            config = Qwen3Config(head_dim=q.shape[-1], **rope)
            modules[key] = Qwen3RotaryEmbedding(config=config, device=q.device)
        cos, sin = modules[key](q, positions)
        return apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=2)

    return call


def compiled_positions():
    def forward(q, k, positions, theta):
        cos, sin = qwen_tables(positions, q.shape[-1], theta, q.dtype)
        return apply_tables(q, k, cos, sin)

    return compiled(forward)


# LTX-Video: diffusers' LTXVideoRotaryPosEmbed.forward (no video_coords) and
# apply_rotary_emb, rewritten here so the reference and torch.compile do not
# need diffusers.

def ltx_cos_sin(batch, frames, height, width, dim, device, dtype):
    grid = torch.stack(torch.meshgrid(
        torch.arange(frames, dtype=dtype, device=device),
        torch.arange(height, dtype=dtype, device=device),
        torch.arange(width, dtype=dtype, device=device), indexing="ij"), dim=0)
    grid = grid.unsqueeze(0).repeat(batch, 1, 1, 1, 1)
    for axis in range(3):
        grid[:, axis:axis + 1] = grid[:, axis:axis + 1] * LTX_SCALE[axis] / LTX_BASE[axis]
    grid = grid.flatten(2, 4).transpose(1, 2)
    freqs = LTX_THETA ** torch.linspace(
        math.log(1.0, LTX_THETA), math.log(LTX_THETA, LTX_THETA), dim // 6,
        device=device, dtype=dtype)
    freqs = freqs * math.pi / 2.0
    freqs = (freqs * (grid.unsqueeze(-1) * 2 - 1)).transpose(-1, -2).flatten(2)
    cos, sin = freqs.cos().repeat_interleave(2, -1), freqs.sin().repeat_interleave(2, -1)
    if dim % 6 != 0:
        cos = torch.cat([torch.ones_like(cos[:, :, :dim % 6]), cos], dim=-1)
        sin = torch.cat([torch.zeros_like(sin[:, :, :dim % 6]), sin], dim=-1)
    return cos, sin


def ltx_apply(x, cos, sin):  # x [b, s, h, d] as diffusers' [B, S, C]
    flat = x.flatten(2)
    real, imag = flat.unflatten(2, (-1, 2)).unbind(-1)
    rotated = torch.stack([-imag, real], dim=-1).flatten(2)
    return (flat.to(cos.dtype) * cos + rotated.to(cos.dtype) * sin).to(x.dtype).view(x.shape)


def ltx_qk(case):
    b, frames, height, width, heads, d = case.shape
    shape = (b, frames * height * width, heads, d)
    return (torch.randn(shape, dtype=case.dtype, device=case.device),
            torch.randn(shape, dtype=case.dtype, device=case.device))


def ltx_grid_inputs(case):
    return ltx_qk(case) + tuple(case.shape[1:4])


def ltx_grid_reference(q, k, frames, height, width):
    cos, sin = ltx_cos_sin(q.shape[0], frames, height, width,
                           q.shape[2] * q.shape[3], q.device, torch.float64)
    return (ltx_apply(q, cos, sin), ltx_apply(k, cos, sin))


def ltx_scale():  # the coordinate scales rope_ltx_video takes
    return [s / base for s, base in zip(LTX_SCALE, LTX_BASE)]


def compiled_ltx_grid():
    def forward(q, k, frames, height, width):
        cos, sin = ltx_cos_sin(q.shape[0], frames, height, width,
                               q.shape[2] * q.shape[3], q.device, torch.float32)
        return (ltx_apply(q, cos, sin), ltx_apply(k, cos, sin))

    return compiled(forward)


def diffusers_ltx_grid():
    from diffusers.models.transformers.transformer_ltx import (
        LTXVideoRotaryPosEmbed, apply_rotary_emb)

    modules = {}

    def call(q, k, frames, height, width):
        dim = q.shape[2] * q.shape[3]
        if dim not in modules:
            modules[dim] = LTXVideoRotaryPosEmbed(
                dim, *LTX_BASE, patch_size=1, patch_size_t=1, theta=LTX_THETA)
        freqs = modules[dim](q.flatten(2), frames, height, width, LTX_SCALE)
        return (apply_rotary_emb(q.flatten(2), freqs).view(q.shape),
                apply_rotary_emb(k.flatten(2), freqs).view(k.shape))

    return call


def ltx_table_inputs(case):
    q, k = ltx_qk(case)
    cos, sin = ltx_cos_sin(q.shape[0], *case.shape[1:4], q.shape[2] * q.shape[3],
                           q.device, torch.float32)
    return (q, k, cos, sin)


def ltx_table_reference(q, k, cos, sin):
    return (ltx_apply(q, cos, sin), ltx_apply(k, cos, sin))


def diffusers_ltx_tables():
    from diffusers.models.transformers.transformer_ltx import apply_rotary_emb

    return lambda q, k, cos, sin: (
        apply_rotary_emb(q.flatten(2), (cos, sin)).view(q.shape),
        apply_rotary_emb(k.flatten(2), (cos, sin)).view(k.shape))


# Qwen3's attention: q_norm and k_norm (Qwen3RMSNorm: the weight times the
# normalized head in q's dtype), then apply_rotary_pos_emb.
QWEN_EPS = 1e-6


def qwen_rms_norm(x, w):
    f = x.float()
    return w * (f * torch.rsqrt(f.pow(2).mean(-1, keepdim=True) + QWEN_EPS)).to(x.dtype)


def qk_norm_rope_inputs(case):
    q, k, cos, sin = table_inputs(case)
    d = q.shape[-1]
    q_weight = 1 + 0.1 * torch.randn(d, dtype=q.dtype, device=q.device)
    k_weight = 1 + 0.1 * torch.randn(d, dtype=q.dtype, device=q.device)
    return (q, k, q_weight, k_weight, cos, sin)


def qk_norm_rope_reference(q, k, q_weight, k_weight, cos, sin):
    return apply_tables(qwen_rms_norm(q, q_weight), qwen_rms_norm(k, k_weight), cos, sin)


def qk_norm_rope_ours(ops, q, k, q_weight, k_weight, cos, sin):
    ops.qk_norm_rope(q, k, q_weight, k_weight, cos, sin, QWEN_EPS, False, "bshd")
    return (q, k)


def qk_norm_rope_to_cache_inputs(case):
    """Qwen3's decode step: q, k, the weights and tables of qk_norm_rope,
    then a static cache [b, k heads, slots, d] and its length (the slots
    filled) as a one-element int64 tensor."""
    b, s, hq, hk, d, slots = case.shape
    qk_case = types.SimpleNamespace(shape=(b, s, hq, hk, d), dtype=case.dtype,
                                    device=case.device)
    k_cache = torch.randn(b, hk, slots, d, dtype=case.dtype, device=case.device)
    length = torch.randint(0, slots - s + 1, (1,), device=case.device)
    return qk_norm_rope_inputs(qk_case) + (k_cache, length)


def qk_norm_rope_to_cache_reference(q, k, q_weight, k_weight, cos, sin, k_cache, length):
    """qk_norm_rope's q, and k written into the cache by StaticLayer.update's
    index_copy_ (in place, as transformers does)."""
    q, k = qk_norm_rope_reference(q, k, q_weight, k_weight, cos, sin)
    slots = torch.arange(k.shape[1], device=k.device) + length
    k_cache.index_copy_(2, slots, k.transpose(1, 2))
    return (q, k_cache)


def qk_norm_rope_to_cache_ours(ops, q, k, q_weight, k_weight, cos, sin, k_cache, length):
    ops.qk_norm_rope_to_cache(q, k, q_weight, k_weight, cos, sin, QWEN_EPS, False, "bshd",
                              k_cache, length)
    return (q, k_cache)


def rope_ours(ops, q, k, cos, sin):
    ops.rope(q, k, cos, sin, False, "bshd")
    return (q, k)


def positions_ours(ops, q, k, positions, theta):
    ops.rope_positions(q, k, positions, theta, False, "bshd")
    return (q, k)


def ltx_grid_ours(ops, q, k, frames, height, width):
    ops.rope_ltx_video(q, k, frames, height, width, ltx_scale(), LTX_THETA, "bshd")
    return (q, k)


def ltx_table_ours(ops, q, k, cos, sin):
    ops.rope(q, k, cos, sin, True, "bshd")
    return (q, k)


BENCHMARKS = {
    "rope": {
        "inputs": table_inputs,
        "ours": rope_ours,
        "reference": apply_tables,
        "peers": {"torch.compile": lambda: compiled(apply_tables),
                  "liger": liger_tables,
                  "transformers": transformers_tables},
    },
    "qk_norm_rope": {
        "inputs": qk_norm_rope_inputs,
        "ours": qk_norm_rope_ours,
        "reference": qk_norm_rope_reference,
        "peers": {"torch.compile": lambda: compiled(qk_norm_rope_reference)},
    },
    "qk_norm_rope_to_cache": {
        "inputs": qk_norm_rope_to_cache_inputs,
        "ours": qk_norm_rope_to_cache_ours,
        "reference": qk_norm_rope_to_cache_reference,
        "peers": {"torch.compile": lambda: compiled(qk_norm_rope_to_cache_reference)},
    },
    "rope_positions": {
        "inputs": positions_inputs,
        "ours": positions_ours,
        "reference": positions_reference,
        "peers": {"torch.compile": compiled_positions,
                  "transformers": transformers_positions},
    },
    "rope_ltx_video": {
        "inputs": ltx_grid_inputs,
        "ours": ltx_grid_ours,
        "reference": ltx_grid_reference,
        "peers": {"torch.compile": compiled_ltx_grid,
                  "diffusers": diffusers_ltx_grid},
    },
    "rope_ltx_tables": {
        "inputs": ltx_table_inputs,
        "ours": ltx_table_ours,
        "reference": ltx_table_reference,
        "peers": {"torch.compile": lambda: compiled(ltx_table_reference),
                  "diffusers": diffusers_ltx_tables},
    },
}
