"""The norm bindings' tensor checks raise readable RuntimeErrors into Python.

On the H200 machine a binding that streamed integers into its TORCH_CHECK
message crashed (SIGSEGV) when called from Python; the checks now build each
message as one string (docs/rmsnorm.md, "Known problems"). This test needs no
GPU: it compiles the rendered rmsnorm template's torch-ext/tensor_checks.h into
a small op library with a CPU kernel, loads it into a fresh Python process and
compares every message, numbers and shapes included, with the exact text; and it
checks that the compiled checks contain no std::ostream insertion at all.
"""

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from e2e_support import describe, init_project, run_python

# The checks in their own translation unit, so its object file shows exactly
# what tensor_checks.h compiles to.
CHECKS_SOURCE = r"""
// Runs one of the norm bindings' checks on a (CPU) tensor.
#include <string>

#include "tensor_checks.h"

using namespace norm_binding;

void RunCheck(const at::Tensor& t, const std::string& check) {
  if (check == "rows") {
    AsRows(t, "rms_norm", "input");
  } else if (check == "writable") {
    CheckWritableRows(AsRows(t, "fused_add_rms_norm", "input"), "fused_add_rms_norm", "input");
  } else if (check == "dtype") {
    KernelDType(t, "rms_norm", "input");
  } else if (check == "cuda") {
    CheckOnCuda(t, t, "rms_norm", "input");
  } else if (check == "weight") {
    CheckWeight(t, t, 3, "rms_norm");
  } else if (check == "launch") {
    CheckLaunch(cudaErrorInvalidValue, "rms_norm");
  } else {
    NORM_CHECK(false, "unknown check ", check);
  }
}
"""

# Registers RunCheck as an op with a CPU kernel, so Python calls it through the
# dispatcher the way it calls the real ops.
LIBRARY_SOURCE = r"""
#include <torch/library.h>

#include <string>

void RunCheck(const at::Tensor& t, const std::string& check);

TORCH_LIBRARY(kbuild_message_probe, m) { m.def("probe(Tensor t, str check) -> ()"); }
TORCH_LIBRARY_IMPL(kbuild_message_probe, CPU, m) { m.impl("probe", &RunCheck); }
"""

# (check, tensor expression, the exact message).
CASES = [
    ("rows", "torch.zeros(())",
     "rms_norm: input must have at least 1 dimension, got a 0-d tensor; "
     "hint: reshape it to [..., hidden]"),
    ("rows", "torch.zeros(4, 128)[:, ::2]",
     "rms_norm: input must be contiguous in its last dimension (stride(-1) == 1), "
     "got stride(-1) = 2 for shape [4, 64]; hint: pass input.contiguous()"),
    ("rows", "torch.zeros(2, 3, 8)[:, :2]",
     "rms_norm: input rows must be evenly spaced (leading dimensions must flatten into one), "
     "but stride(0) = 24 for shape [2, 2, 8] and strides [24, 8, 1]; "
     "hint: pass input.contiguous()"),
    ("writable", "torch.zeros(8).as_strided((4, 4), (1, 1))",
     "fused_add_rms_norm: input is written in place, so its rows must not overlap, "
     "got row stride 1 < hidden 4; hint: pass a clone"),
    ("dtype", "torch.zeros(4, dtype=torch.int32)",
     "rms_norm: input has dtype Int; supported: bfloat16, float16, float32"),
    ("cuda", "torch.zeros(4)",
     "rms_norm: input must be a CUDA tensor, got cpu; hint: move it with input.cuda()"),
    ("weight", "torch.zeros(3)",
     "rms_norm: weight must be a CUDA tensor, got cpu; hint: move it with weight.cuda()"),
    ("launch", "torch.zeros(1)",
     "rms_norm: kernel launch failed: invalid argument "
     "(unsupported dtype or size; see the checks above)"),
]

# One process for all cases: prints each message's first line as JSON, so a
# crash shows as a negative exit code after the cases that passed.
CALL_SCRIPT = """
import json, sys
import torch
torch.ops.load_library(sys.argv[1])
for check, expression in json.loads(sys.argv[2]):
    try:
        torch.ops.kbuild_message_probe.probe(eval(expression), check)
        message = "accepted"
    except RuntimeError as error:
        message = str(error).splitlines()[0]
    print(json.dumps(message), flush=True)
"""


def torch_root():
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed in this python")
    return Path(spec.submodule_search_locations[0])


def cuda_root():
    """The CUDA toolkit: tensor_checks.h includes cuda_runtime_api.h and calls
    cudaGetErrorString."""
    nvcc = shutil.which("nvcc")
    roots = ([Path(nvcc).resolve().parents[1]] if nvcc else []) + [Path("/usr/local/cuda")]
    for root in roots:
        if (root / "include" / "cuda_runtime_api.h").is_file():
            return root
    pytest.skip("CUDA toolkit not found (no cuda_runtime_api.h)")


class Probe:
    """The compiled checks object and the op library linked from it."""

    def __init__(self, checks_object, library):
        self.checks_object = checks_object
        self.library = library


def compile_cpp(args):
    result = subprocess.run(["g++", "-std=c++17", "-O1", "-fPIC", *map(str, args)], text=True,
                            capture_output=True, timeout=600)
    assert result.returncode == 0, describe(result)


@pytest.fixture(scope="module")
def probe(kbuild, tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("g++ not found")
    torch_dir = torch_root()
    cuda_dir = cuda_root()
    abi = run_python("import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))")
    assert abi.returncode == 0, describe(abi)
    flags = [f"-D_GLIBCXX_USE_CXX11_ABI={abi.stdout.strip()}", "-isystem", torch_dir / "include",
             "-isystem", cuda_dir / "include"]
    project = init_project(kbuild, "rmsnorm", tmp_path_factory.mktemp("probe"))
    checks = project / "torch-ext" / "message_checks.cpp"
    checks.write_text(CHECKS_SOURCE)
    registration = project / "torch-ext" / "message_library.cpp"
    registration.write_text(LIBRARY_SOURCE)
    probe = Probe(project / "message_checks.o", project / "message_probe.so")
    compile_cpp([*flags, "-c", checks, "-o", probe.checks_object])
    compile_cpp([*flags, "-shared", registration, probe.checks_object, "-o", probe.library,
                 f"-L{torch_dir / 'lib'}", "-lc10", "-ltorch_cpu",
                 f"-L{cuda_dir / 'lib64'}", "-lcudart"])
    return probe


def test_check_messages_raise_with_exact_text(probe):
    calls = [[check, expression] for check, expression, _ in CASES]
    result = run_python(CALL_SCRIPT, probe.library, json.dumps(calls))
    assert result.returncode == 0, describe(result)
    got = [json.loads(line) for line in result.stdout.splitlines()]
    want = [message for _, _, message in CASES]
    assert got == want


def test_checks_never_touch_an_ostream(probe):
    """No stream insertion is compiled into the checks (ios_base::Init, from
    <iostream> included by torch headers, constructs no stream)."""
    symbols = subprocess.run(["nm", "-C", probe.checks_object], text=True, capture_output=True)
    assert symbols.returncode == 0, describe(symbols)
    streamed = [line for line in symbols.stdout.splitlines()
                if re.search(r"ostream|ostringstream|_M_insert|operator<<", line)]
    assert streamed == [], "tensor_checks.h streams into an ostream:\n" + "\n".join(streamed)
