"""The peers of an RMSNorm over the last dimension, shared by the norm templates'
benchmarks/peers.py (rms_norm over [rows, hidden], head_rms_norm over
[tokens, heads, head_dim]): the inputs, the float64 reference, and the peer
factories (torch.compile of F.rms_norm, Liger, QuACK). Format:
the skill's references/harness.md (Python peers).
"""
import importlib

import torch
import torch.nn.functional as F


def make_inputs(case):
    x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    weight = torch.randn(case.shape[-1], dtype=case.dtype, device=case.device)
    return (x, weight, 1e-6)


def reference(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def compiled():
    # dynamic=False compiles one graph per shape and dtype; past the default
    # recompile limit (8) torch.compile would quietly run eager PyTorch.
    torch._dynamo.config.recompile_limit = max(
        torch._dynamo.config.recompile_limit, 256)
    return torch.compile(
        lambda x, w, eps: F.rms_norm(x, (x.shape[-1],), w, eps), dynamic=False)


def liger():
    from liger_kernel.transformers.functional import liger_rms_norm

    return lambda x, w, eps: liger_rms_norm(x, w, eps)


def quack():
    # quack/__init__.py re-exports a function named rmsnorm, which shadows the
    # submodule for `import quack.rmsnorm`; import_module returns the module.
    forward = importlib.import_module("quack.rmsnorm").rmsnorm_fwd

    def call(x, w, eps):  # QuACK takes [rows, hidden]
        return forward(x.reshape(-1, x.shape[-1]), w, eps=eps)[0].view(x.shape)

    return call


PEERS = {"torch.compile": compiled, "liger": liger, "quack": quack}
