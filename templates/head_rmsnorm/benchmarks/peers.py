"""Python baselines ("peers") that `kbuild bench` times against head_rms_norm:
RMSNorm over the last dimension of [tokens, heads, head_dim].

After the C++ benchmark, kbuild times ours and every peer here in one Python
worker by the same rules and checks their values against reference() in
float64. BENCHMARKS is keyed by benchmark name (BenchSpec.name in
benchmarks/head_rms_norm_bench.cpp): for each of its cases, inputs(case)
gives the positional arguments of ours(ops, ...), of every peer and, as
float64 copies, of reference(...). A peer factory runs once; whatever it raises (a package
not installed) is reported as the peer's reason for being unavailable.
"""
from norm_peers import PEERS, make_inputs, reference  # beside this file


def ours(ops, x, weight, eps):
    return ops.head_rms_norm(x, weight, eps)


BENCHMARKS = {
    "head_rms_norm": {
        "inputs": make_inputs,
        "ours": ours,
        "reference": reference,
        "peers": PEERS,
    },
}
