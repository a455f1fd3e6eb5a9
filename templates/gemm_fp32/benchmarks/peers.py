"""Python baselines ("peers") that `kbuild bench` times against gemm.

After the C++ benchmark, kbuild times ours and every peer here in one Python
worker by the same rules and checks their values against reference() in
float64. BENCHMARKS is keyed by benchmark name (BenchSpec.name in
benchmarks/gemm_bench.cpp: "gemm", "gemm_bias"); case.shape is [M, N, K].
A peer factory runs once; whatever it raises is reported as the peer's
reason for being unavailable.

The peer is torch.compile of the reference function with TF32 off, so
inductor picks an fp32 CUDA-core GEMM (cuBLAS SGEMM, or a Triton template
without tf32 dots). Liger-Kernel and diffusers have no GEMM op of their own:
they call torch.mm / nn.Linear, which is the C++ benchmark's cuBLAS baseline.
"""
import torch


def _disable_tf32():
    # One API: the torch 2.9+ fp32 precision setting, the same the C++
    # benchmark makes (inductor reads it; mixing it with the legacy
    # torch.backends.cuda.matmul.allow_tf32 flag makes torch raise).
    torch.backends.cuda.matmul.fp32_precision = "ieee"


def make_inputs(case):
    m, n, k = case.shape
    a = torch.randn((m, k), dtype=case.dtype, device=case.device)
    b = torch.randn((k, n), dtype=case.dtype, device=case.device)
    return (a, b)


def make_inputs_bias(case):
    a, b = make_inputs(case)
    bias = torch.randn(case.shape[1], dtype=case.dtype, device=case.device)
    return (a, b, bias)


def reference(a, b, bias=None):
    return a @ b if bias is None else a @ b + bias


def ours(ops, a, b, bias=None):
    return ops.gemm(a, b, bias)


def compiled():
    _disable_tf32()
    # dynamic=False compiles one graph per shape; past the default recompile
    # limit (8) torch.compile would quietly run eager PyTorch.
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 256)
    # mode="max-autotune-no-cudagraphs" lets inductor also time its Triton
    # GEMM templates against cuBLAS per shape (minutes of autotuning per case).
    return torch.compile(reference, dynamic=False)


BENCHMARKS = {
    "gemm": {
        "inputs": make_inputs,
        "ours": ours,
        "reference": reference,
        "peers": {"torch.compile": compiled},
    },
    "gemm_bias": {
        "inputs": make_inputs_bias,
        "ours": ours,
        "reference": reference,
        "peers": {"torch.compile": compiled},
    },
}
