"""Python baselines ("peers") that `kbuild bench` times against swiglu and
silu_mul (benchmarks/swiglu_bench.cpp): torch.compile of F.silu(gate) * up,
and Liger-Kernel's LigerSiLUMulFunction (liger_kernel.ops.swiglu: silu(a) * b
for two tensors a, b, made contiguous first; sigmoid in float32). Entries and
format: gated_peers.py beside this file.
"""
import torch.nn.functional as F

from gated_peers import compiled, entry  # beside this file


def liger():
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction

    return LigerSiLUMulFunction.apply


PEERS = {"torch.compile": compiled(F.silu), "liger": liger}

BENCHMARKS = {
    "swiglu": entry(lambda ops: ops.swiglu, F.silu, pair=False, peers=PEERS),
    "silu_mul": entry(lambda ops: ops.silu_mul, F.silu, pair=True, peers=PEERS),
}
