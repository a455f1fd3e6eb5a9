"""Python baselines ("peers") that `kbuild bench` times against softmax.

After the C++ benchmark (benchmarks/softmax_bench.cpp, whose baseline is
at::softmax, i.e. F.softmax eager), kbuild times ours and every peer here in
one Python worker by the same rules and checks their values against
reference() in float64. Format: the skill's references/harness.md (Python peers). A peer factory that raises (a package not installed) is reported as
the peer's reason for being unavailable.

Peers: torch.compile of torch.softmax; Liger-Kernel's LigerSoftmaxFunction
(liger_kernel/ops/softmax.py: Triton, a block per row up to 65536 columns,
two passes beyond); QuACK's softmax_fwd (CuTe DSL, [rows, cols], clusters
for long rows). diffusers has no softmax kernel of its own (its attention
processors call F.softmax or fused attention).
"""
import torch


def make_inputs(case):
    return (torch.randn(case.shape, dtype=case.dtype, device=case.device),)


def ours(ops, x):
    return ops.softmax(x)


def reference(x):
    return torch.softmax(x, dim=-1)


def compiled():
    # dynamic=False compiles one graph per shape and dtype; past the default
    # recompile limit (8) torch.compile would quietly run eager PyTorch.
    torch._dynamo.config.recompile_limit = max(
        torch._dynamo.config.recompile_limit, 256)
    return torch.compile(lambda x: torch.softmax(x, dim=-1), dynamic=False)


def liger():
    from liger_kernel.ops import LigerSoftmaxFunction

    return lambda x: LigerSoftmaxFunction.apply(x)


def quack():
    from quack.softmax import softmax_fwd

    def call(x):  # QuACK takes [rows, cols]
        return softmax_fwd(x.reshape(-1, x.shape[-1])).view(x.shape)

    return call


BENCHMARKS = {
    "softmax": {
        "inputs": make_inputs,
        "ours": ours,
        "reference": reference,
        "peers": {"torch.compile": compiled, "liger": liger, "quack": quack},
    },
}
