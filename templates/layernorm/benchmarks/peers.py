"""Python baselines ("peers") that `kbuild bench` times against layer_norm.

After the C++ benchmark, kbuild times ours and every peer here in one Python
worker by the same rules and checks their values against reference() in
float64. BENCHMARKS is keyed by benchmark name (BenchSpec.name in
benchmarks/layer_norm_bench.cpp): "layer_norm" passes a weight and a bias of
x's dtype, "layer_norm_no_affine" neither (LTX-Video). A peer factory runs
once; whatever it raises (a package not installed) is reported as the peer's
reason for being unavailable. Format: the skill's references/harness.md (Python
peers).
"""
import torch
import torch.nn.functional as F


def affine_inputs(case):
    hidden = case.shape[-1]
    x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    weight = torch.randn(hidden, dtype=case.dtype, device=case.device)
    bias = torch.randn(hidden, dtype=case.dtype, device=case.device)
    return (x, weight, bias, 1e-5)


def plain_inputs(case):
    x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    return (x, None, None, 1e-6)


def ours(ops, x, weight, bias, eps):
    return ops.layer_norm(x, weight, bias, eps)


def reference(x, weight, bias, eps):
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def compiled():
    # dynamic=False compiles one graph per shape and dtype; past the default
    # recompile limit (8) torch.compile would quietly run eager PyTorch.
    torch._dynamo.config.recompile_limit = max(
        torch._dynamo.config.recompile_limit, 256)
    return torch.compile(reference, dynamic=False)


def liger():
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction

    def call(x, weight, bias, eps):  # Liger takes a weight and a bias
        return LigerLayerNormFunction.apply(x, weight, bias, eps)

    return call


def quack():
    # quack.rmsnorm's layernorm_fwd takes only a float32 weight and bias; the
    # op under it, with is_layernorm=True, takes them in x's dtype too or
    # none (checked against quack 0.6.4's source), so the call pays no casts.
    # Positional: x, weight, out, bias, rstd, mean, residual, residual_out,
    # eps, is_layernorm.
    from quack.rmsnorm import _rmsnorm_fwd

    def call(x, weight, bias, eps):  # QuACK takes [rows, hidden]
        rows = x.reshape(-1, x.shape[-1])
        out = torch.empty_like(rows)
        _rmsnorm_fwd(rows, weight, out, bias, None, None, None, None, eps, True)
        return out.view(x.shape)

    return call


BENCHMARKS = {
    "layer_norm": {
        "inputs": affine_inputs,
        "ours": ours,
        "reference": reference,
        "peers": {"torch.compile": compiled, "liger": liger, "quack": quack},
    },
    # Liger's layer norm needs a weight and a bias; diffusers' LTX-Video
    # norm is torch.nn.LayerNorm, which the C++ benchmark's at::layer_norm
    # baseline times.
    "layer_norm_no_affine": {
        "inputs": plain_inputs,
        "ours": ours,
        "reference": reference,
        "peers": {"torch.compile": compiled, "quack": quack},
    },
}
