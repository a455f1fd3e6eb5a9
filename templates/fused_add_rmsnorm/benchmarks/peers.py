"""Python baselines ("peers") that `kbuild bench` times against
fused_add_rms_norm: residual = x + residual, then RMSNorm of it.

After the C++ benchmark, kbuild times ours and every peer here in one Python
worker by the same rules and checks their values against reference() in
float64. BENCHMARKS is keyed by benchmark name (BenchSpec.name in
benchmarks/fused_add_rms_norm_bench.cpp): for each of its cases,
inputs(case) gives the positional arguments of ours(ops, ...), of every peer
and, as float64 copies, of reference(...). A peer factory runs once;
whatever it raises (a package not installed) is reported as the peer's
reason for being unavailable.

Every implementation returns (normed, new residual), the reference's order.
Ours works in place (x becomes the normed rows, residual the sum); the peers
allocate both outputs. Each peer is a real fused add + norm (one kernel), not
a plain norm after an eager add: that would be a different, slower op.
"""
import importlib

import torch
import torch.nn.functional as F


def make_inputs(case):
    x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    residual = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    weight = torch.randn(case.shape[-1], dtype=case.dtype, device=case.device)
    return (x, residual, weight, 1e-6)


def ours(ops, x, residual, weight, eps):
    ops.fused_add_rms_norm(x, residual, weight, eps)
    return (x, residual)


def reference(x, residual, weight, eps):
    total = x + residual
    normed = total * torch.rsqrt(total.pow(2).mean(-1, keepdim=True) + eps)
    return (normed * weight, total)


def add_then_rms_norm(x, residual, w, eps):
    total = x + residual
    return (F.rms_norm(total, (total.shape[-1],), w, eps), total)


def compiled():
    # torch.compile fuses the eager add and norm into one kernel. dynamic=False
    # compiles one graph per shape and dtype; past the default recompile limit
    # (8) it would quietly run eager PyTorch.
    torch._dynamo.config.recompile_limit = max(
        torch._dynamo.config.recompile_limit, 256)
    return torch.compile(add_then_rms_norm, dynamic=False)


def liger():
    # LigerFusedAddRMSNorm's function: returns (normed, x + residual).
    from liger_kernel.transformers.functional import liger_fused_add_rms_norm

    return lambda x, residual, w, eps: liger_fused_add_rms_norm(
        x, residual, w, eps)


def quack():
    # rmsnorm_fwd with a residual adds it in fp32 and returns (normed,
    # residual_out, rstd). quack/__init__.py re-exports a function named
    # rmsnorm, which shadows the submodule; import_module returns the module.
    forward = importlib.import_module("quack.rmsnorm").rmsnorm_fwd

    def call(x, residual, w, eps):  # QuACK takes [rows, hidden]
        rows = (-1, x.shape[-1])
        out, total, _ = forward(x.reshape(rows), w,
                                residual=residual.reshape(rows), eps=eps)
        return (out.view(x.shape), total.view(x.shape))

    return call


BENCHMARKS = {
    "fused_add_rms_norm": {
        "inputs": make_inputs,
        "ours": ours,
        "reference": reference,
        "peers": {"torch.compile": compiled, "liger": liger, "quack": quack},
    },
}
