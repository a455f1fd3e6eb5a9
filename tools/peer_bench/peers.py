"""The RMSNorm implementations we compare against. Each peer is a function
make(x, w, eps) -> callable; peers that cannot be imported are recorded with
the exact error instead, and the run goes on without them."""
import importlib
import traceback

import torch
import torch.nn.functional as F


def eager_composite(x, w, eps):
    """The unfused transformers-style RMSNorm (several kernels)."""
    x32 = x.float()
    variance = x32.pow(2).mean(-1, keepdim=True)
    return w * (x32 * torch.rsqrt(variance + eps)).to(x.dtype)


_compiled_composite = None


def _make_compiled(x, w, eps):
    global _compiled_composite
    if _compiled_composite is None:
        torch._dynamo.config.cache_size_limit = 256
        _compiled_composite = torch.compile(eager_composite, dynamic=False)
    return lambda: _compiled_composite(x, w, eps)


def _make_liger():
    from liger_kernel.transformers.rms_norm import LigerRMSNorm

    def make(x, w, eps):
        layer = LigerRMSNorm(x.shape[-1], eps=eps, in_place=False).to(
            device=x.device, dtype=w.dtype
        )
        with torch.no_grad():
            layer.weight.copy_(w)
        return lambda: layer(x)

    return make


def _make_quack():
    # quack/__init__.py re-exports the function `rmsnorm`, which shadows the submodule of the
    # same name for `import quack.rmsnorm as qr`; import_module returns the module itself.
    qr = importlib.import_module("quack.rmsnorm")

    forward = getattr(qr, "rmsnorm_fwd", None)

    def make(x, w, eps):
        if forward is not None:
            return lambda: forward(x, w, eps=eps)[0]
        return lambda: qr.rmsnorm(x, w, eps=eps)

    return make


def load_peers():
    """Returns (peers, errors): name -> make(x, w, eps), and name -> reason."""
    peers = {
        "F.rms_norm": lambda x, w, eps: (
            lambda: F.rms_norm(x, (x.shape[-1],), w, eps)
        ),
        "torch.compile": _make_compiled,
        "eager": lambda x, w, eps: (lambda: eager_composite(x, w, eps)),
    }
    errors = {}
    for name, loader in (("liger", _make_liger), ("quack", _make_quack)):
        try:
            peers[name] = loader()
        except Exception as e:  # report exactly why, keep going
            errors[name] = f"{type(e).__name__}: {e}"
    return peers, errors


def describe_exception(e: BaseException) -> str:
    last = traceback.format_exception_only(type(e), e)[-1].strip()
    return last[:500]
