"""Python baselines ("peers") that `kbuild bench` times against cross_entropy.

After the C++ benchmark (benchmarks/cross_entropy_bench.cpp, whose baseline is
at::cross_entropy_loss, i.e. F.cross_entropy eager), kbuild times ours and
every peer here in one Python worker by the same rules and checks their values
against reference() in float64. A peer factory that raises (a package not
installed) is reported as the peer's reason for being unavailable.

Peers:
- torch.compile of F.cross_entropy(x, t, reduction="none") (Inductor fuses
  log_softmax + gather into one reduction kernel; its loss has x's dtype).
- Liger-Kernel's cross entropy (Triton, a program per row; float32 loss).
  NOTE (not from the skill, unverified here): Liger's forward also computes
  the gradient and, in some versions, writes it into the logits in place.
  The logits never require grad here; if the harness still reports the
  input as modified, that version writes in place unconditionally and its
  numbers are not comparable.
"""
import torch
import torch.nn.functional as F

VOCAB_IGNORE = -100


def make_inputs(case):
    rows, vocab = case.shape
    x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    t = torch.randint(0, vocab, (rows,), dtype=torch.int64, device=case.device)
    return (x, t)


def ours(ops, x, t):
    return ops.cross_entropy(x, t, VOCAB_IGNORE)


def reference(x, t):
    x = x.double()
    return torch.logsumexp(x, dim=-1) - x.gather(-1, t.unsqueeze(-1)).squeeze(-1)


def compiled():
    # dynamic=False compiles one graph per shape and dtype; past the default
    # recompile limit (8) torch.compile would quietly run eager PyTorch.
    torch._dynamo.config.recompile_limit = max(
        torch._dynamo.config.recompile_limit, 256)
    return torch.compile(
        lambda x, t: F.cross_entropy(x, t, reduction="none",
                                     ignore_index=VOCAB_IGNORE),
        dynamic=False)


def liger():
    from liger_kernel.transformers.functional import liger_cross_entropy

    def call(x, t):
        out = liger_cross_entropy(x, t, ignore_index=VOCAB_IGNORE,
                                  reduction="none")
        return out[0] if isinstance(out, tuple) else out

    return call


BENCHMARKS = {
    "cross_entropy": {
        "inputs": make_inputs,
        "ours": ours,
        "reference": reference,
        "peers": {"torch.compile": compiled, "liger": liger},
    },
}
