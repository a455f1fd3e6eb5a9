"""Python baselines ("peers") that `kbuild bench` times against geglu and
gelu_mul (benchmarks/geglu_bench.cpp): torch.compile of
F.gelu(gate, approximate) * up, and, for the tanh form only, Liger-Kernel's
LigerGELUMulFunction (liger_kernel.ops.geglu: gelu_tanh(a) * b for two tensors
a, b, made contiguous first; it rounds gelu(a) to b's dtype before the
multiply). diffusers' GEGLU (diffusers.models.activations) is a module that
owns its projection (proj, then chunk and hidden_states * gelu(gate)), not a
peer for the activation alone. Entries and format: gated_peers.py beside this
file.
"""
import functools

import torch.nn.functional as F

from gated_peers import compiled, entry  # beside this file

gelu = F.gelu
gelu_tanh = functools.partial(F.gelu, approximate="tanh")


def liger():
    from liger_kernel.ops.geglu import LigerGELUMulFunction

    return LigerGELUMulFunction.apply


BENCHMARKS = {
    "geglu": entry(lambda ops: ops.geglu, gelu, pair=False, gate_first=False,
                   extra=("none",), peers={"torch.compile": compiled(gelu)}),
    "geglu_tanh": entry(lambda ops: ops.geglu, gelu_tanh, pair=False, extra=("tanh",),
                        peers={"torch.compile": compiled(gelu_tanh), "liger": liger}),
    "gelu_mul_tanh": entry(lambda ops: ops.gelu_mul, gelu_tanh, pair=True, extra=("tanh",),
                           peers={"torch.compile": compiled(gelu_tanh), "liger": liger}),
}
