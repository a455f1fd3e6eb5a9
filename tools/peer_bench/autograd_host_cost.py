"""Host time per call that autograd adds to a custom op, by grad mode: the same trivial op
(a copy of 8 floats, on the CPU: the autograd layer's cost does not depend on the device)
registered three ways, as references/torch-binding.md describes them:

  plain      a C++ op (TORCH_LIBRARY), no backward, called as torch.ops.autograd_probe.plain
  refusing   plain through a Python wrapper that calls refuse_grad (templates/library/no_backward.py)
  autograd   a second C++ op + torch.library.register_autograd (a backward in PyTorch)

each called under grad mode on, torch.no_grad() and torch.inference_mode(), with an input that
does not require grad and (grad mode on) one that does. Prints microseconds per call, the median
of 7 runs of 20,000 calls.

Usage: python3 tools/peer_bench/autograd_host_cost.py
"""

import gc
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates" / "library"))
from no_backward import refuse_grad  # noqa: E402

CALLS = 20_000
RUNS = 7


# Two C++ ops, as a template registers its ops (TORCH_LIBRARY in torch_binding.cpp); compiled
# on first use with torch's cpp_extension (a minute on two cores).
CPP_SOURCE = r"""
#include <torch/library.h>
#include <ATen/ATen.h>
at::Tensor copy8(const at::Tensor& x) { return x.clone(); }
TORCH_LIBRARY(autograd_probe, m) {
  m.def("plain(Tensor x) -> Tensor");
  m.def("with_backward(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(autograd_probe, CPU, m) {
  m.impl("plain", copy8);
  m.impl("with_backward", copy8);
}
"""


def load_ops():
    from torch.utils.cpp_extension import load_inline
    load_inline("autograd_probe", cpp_sources=CPP_SOURCE, is_python_module=False)
    return torch.ops.autograd_probe.plain, torch.ops.autograd_probe.with_backward


def _setup_context(ctx, inputs, output):
    pass


def _backward(ctx, grad):
    return grad


def refusing_wrapper(plain):
    def refusing(x):
        refuse_grad("plain", x)
        return plain(x)
    return refusing


def us_per_call(fn, x, mode):
    samples = []
    for _ in range(RUNS):
        with mode():
            gc.disable()
            start = time.perf_counter()
            for _ in range(CALLS):
                fn(x)
            elapsed = time.perf_counter() - start
            gc.enable()
        samples.append(elapsed / CALLS * 1e6)
    return statistics.median(samples)


def main():
    plain, with_backward = load_ops()
    torch.library.register_autograd("autograd_probe::with_backward", _backward,
                                    setup_context=_setup_context)
    refusing = refusing_wrapper(plain)
    modes = [("grad on", torch.enable_grad), ("no_grad", torch.no_grad),
             ("inference_mode", torch.inference_mode)]
    x = torch.randn(8)
    x_grad = torch.randn(8, requires_grad=True)
    print(f"torch {torch.__version__}, {CALLS} calls x {RUNS} runs, median us per call")
    print("| op | " + " | ".join(name for name, _ in modes) + " | grad on, input requires grad |")
    print("|---|" + "---|" * (len(modes) + 1))
    for name, fn in [("plain", plain), ("refusing", refusing), ("autograd", with_backward)]:
        row = [f"{us_per_call(fn, x, mode):.2f}" for _, mode in modes]
        if fn is refusing:
            row.append("raises")
        else:
            row.append(f"{us_per_call(fn, x_grad, torch.enable_grad):.2f}")
        print(f"| {name} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
