"""Python baselines ("peers") that `kbuild bench` times against adaptive_norm
and gated_residual.

After the C++ benchmarks, kbuild times ours and every peer here in one Python
worker by the same rules and checks their values against reference() in
float64. BENCHMARKS is keyed by benchmark name (BenchSpec.name in
benchmarks/adaptive_norm_bench.cpp and gated_residual_bench.cpp): for each
of its cases, inputs(case) gives the positional arguments of ours(ops, ...),
of every peer and, as float64 copies, of reference(...). A peer factory runs
once; whatever it raises is reported as the peer's reason for being
unavailable.

The peer is torch.compile of the eager expression diffusers runs (Inductor
fuses the norm and the modulation, or the multiply and the add, into one
kernel). Neither diffusers nor Liger-Kernel (0.8.5: RMSNorm and LayerNorm
with weights, no modulation) has a fused adaptive norm or gated residual, so
their eager forms are the C++ benchmarks' baselines, not peers here.
"""
import torch
import torch.nn.functional as F

EPS = 1e-6


def _broadcastable(m):  # [b, hidden] broadcasts over tokens as [b, 1, hidden]
    return m.unsqueeze(1) if m.dim() == 2 else m


def _modulation(case, per_token, chunks):
    """`chunks` modulation tensors for x of case.shape: [b, hidden] each, or
    views of one [b, tokens, 6, hidden] tensor (LTX-Video's temb slices)."""
    b, tokens, hidden = case.shape
    if per_token:
        table = torch.randn(b, tokens, 6, hidden, dtype=case.dtype, device=case.device)
        return [table[:, :, k] for k in chunks]
    return [torch.randn(b, hidden, dtype=case.dtype, device=case.device) for _ in chunks]


def _norm_inputs(norm, per_token):
    def make_inputs(case):
        x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
        scale, shift = _modulation(case, per_token, (1, 0))
        return (x, scale, shift, norm, EPS)

    return make_inputs


def ours_norm(ops, x, scale, shift, norm, eps):
    return ops.adaptive_norm(x, scale, shift, norm, eps)


def reference_norm(x, scale, shift, norm, eps):
    if norm == "layer":
        centered = x - x.mean(-1, keepdim=True)
        n = centered * torch.rsqrt(centered.pow(2).mean(-1, keepdim=True) + eps)
    else:
        n = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return n * (1 + _broadcastable(scale)) + _broadcastable(shift)


def eager_norm(x, scale, shift, norm, eps):
    """What diffusers runs: LayerNorm(elementwise_affine=False) or its RMSNorm
    without weight (float32 statistics, rounded to x's dtype), then
    norm * (1 + scale) + shift in x's dtype."""
    if norm == "layer":
        n = F.layer_norm(x, (x.shape[-1],), eps=eps)
    else:
        variance = x.float().pow(2).mean(-1, keepdim=True)
        n = (x * torch.rsqrt(variance + eps)).to(x.dtype)
    return n * (1 + _broadcastable(scale)) + _broadcastable(shift)


def _compiled(function):
    def factory():
        # dynamic=False compiles one graph per shape and dtype; past the
        # default recompile limit (8) torch.compile would quietly run eager.
        torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 256)
        return torch.compile(function, dynamic=False)

    return factory


def _gated_inputs(per_token):
    def make_inputs(case):
        x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
        y = torch.randn(case.shape, dtype=case.dtype, device=case.device)
        (gate,) = _modulation(case, per_token, (2,))
        return (x, y, gate)

    return make_inputs


def ours_gated(ops, x, y, gate):
    return ops.gated_residual(x, y, gate)


def eager_gated(x, y, gate):  # diffusers: hidden_states + attn_hidden_states * gate_msa
    return x + y * _broadcastable(gate)


def _norm_benchmark(norm, per_token):
    return {
        "inputs": _norm_inputs(norm, per_token),
        "ours": ours_norm,
        "reference": reference_norm,
        "peers": {"torch.compile": _compiled(eager_norm)},
    }


def _gated_benchmark(per_token):
    return {
        "inputs": _gated_inputs(per_token),
        "ours": ours_gated,
        "reference": eager_gated,
        "peers": {"torch.compile": _compiled(eager_gated)},
    }


BENCHMARKS = {
    "adaptive_norm_rms": _norm_benchmark("rms", per_token=False),
    "adaptive_norm_rms_per_token": _norm_benchmark("rms", per_token=True),
    "adaptive_norm_layer": _norm_benchmark("layer", per_token=False),
    "gated_residual": _gated_benchmark(per_token=False),
    "gated_residual_per_token": _gated_benchmark(per_token=True),
}
