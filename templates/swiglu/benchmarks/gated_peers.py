"""The peers of a gated activation, out = act(gate) * up, shared by the swiglu
and geglu templates' benchmarks/peers.py: the inputs (case.shape is the
output's [rows, d]), the float64 reference and the BENCHMARKS entries, in the
one-tensor form (x = [rows, 2d], gate_first picks the gate's half) and the
two-tensor form (gate, up = [rows, d]). Format: the skill's references/harness.md
(Python peers).
"""
import torch


def halves(x, gate_first):
    """(gate, up) of a [..., 2d] tensor."""
    d = x.shape[-1] // 2
    first, second = x[..., :d], x[..., d:]
    return (first, second) if gate_first else (second, first)


def compiled(act):
    """A peer factory: torch.compile of the eager act(gate) * up."""

    def factory():
        # dynamic=False compiles one graph per shape and dtype; past the default
        # recompile limit (8) torch.compile would quietly run eager PyTorch.
        torch._dynamo.config.recompile_limit = max(
            torch._dynamo.config.recompile_limit, 256)
        return torch.compile(lambda gate, up: act(gate) * up, dynamic=False)

    return factory


def entry(ours_op, act, pair, peers, gate_first=True, extra=()):
    """One BENCHMARKS entry. ours_op(ops) -> the op; peers: name -> factory of
    a callable (gate, up) -> out (the one-tensor form hands it x's halves as
    views, as a Python caller that chunks a fused projection would); extra:
    the op's arguments after the tensors (and gate_first)."""
    if pair:
        def make_inputs(case):
            return tuple(torch.randn(case.shape, dtype=case.dtype, device=case.device)
                         for _ in range(2))

        def ours(ops, gate, up):
            return ours_op(ops)(gate, up, *extra)

        def reference(gate, up):
            return act(gate) * up

        def wrap(factory):
            return factory
    else:
        def make_inputs(case):
            rows, d = case.shape
            return (torch.randn((rows, 2 * d), dtype=case.dtype, device=case.device),)

        def ours(ops, x):
            return ours_op(ops)(x, gate_first, *extra)

        def reference(x):
            gate, up = halves(x, gate_first)
            return act(gate) * up

        def wrap(factory):
            def split_factory():
                call = factory()
                return lambda x: call(*halves(x, gate_first))

            return split_factory

    return {
        "inputs": make_inputs,
        "ours": ours,
        "reference": reference,
        "peers": {name: wrap(factory) for name, factory in peers.items()},
    }
