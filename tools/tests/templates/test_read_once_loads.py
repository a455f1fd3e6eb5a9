"""Evict-first reads (templates/library/vec.cuh) change only the cache policy of loads.

They are `ld.global.nc...L2::cache_hint` loads under a `createpolicy ... L2::evict_first`
policy: asm statements, which the compiler cannot relate to the overlapped launch's
`griddepcontrol.wait`; read before it, they could see the previous kernel's output unfinished.
So every kernel that has them must wait first, and they must sit exactly where asked:
- softmax: with the knob VEC_READ_ONCE_EVICT_FIRST on its held 16-byte x rows; without it on
  no load at all;
- the gated residual and the gated activations: on the evict-first twins that launch.cuh's
  rule picks per launch (`kEvictFirst` true), of 16-byte vectors only, and nowhere else.
No GPU needed: nvcc compiles the sources to PTX here.

Run: .venv/bin/python -m pytest tools/tests/templates/test_read_once_loads.py
"""

import re

import pytest

from test_vector_loads import EVICT_FIRST_POLICY, TEMPLATES, find_nvcc, kernels, ptx_of, rendered

HINTED_LOAD = "ld.global.nc.L1::no_allocate.L2::cache_hint"
WAIT = "griddepcontrol.wait"
WIDE_HELD = re.compile(r"Softmax(Register|HeldCluster)Kernel<(float, 4|__nv_bfloat16, 8|__half, 8),")


def template_ptx(tmp_path, source_glob, defines=()):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("no nvcc on this machine")
    (source,) = TEMPLATES.glob(source_glob)
    return ptx_of(nvcc, rendered(source, tmp_path), defines)


def softmax_ptx(tmp_path, defines=()):
    return template_ptx(tmp_path, "softmax/{{python_name}}_cuda/softmax.cu", defines)


def misplaced_hints(found):
    """Kernels whose hinted loads come before griddepcontrol.wait or lack the evict-first policy."""
    hinted = [(name, body) for name, body in found if HINTED_LOAD in body]
    early = [name[:160] for name, body in hinted
             if WAIT not in body or body.index(WAIT) > body.index(HINTED_LOAD)]
    unpoliced = [name[:160] for name, body in hinted
                 if EVICT_FIRST_POLICY not in body]
    return early, unpoliced


def expect_hints_exactly_on(found, evict_first):
    """The kernels named in evict_first, and no others, carry well-placed hinted loads."""
    assert evict_first, "no evict-first kernel instantiated"
    assert sorted(evict_first) == sorted(name for name, body in found if HINTED_LOAD in body)
    early, unpoliced = misplaced_hints(found)
    assert not early, "hinted loads before griddepcontrol.wait:\n" + "\n".join(early)
    assert not unpoliced, "hinted loads without the evict-first policy:\n" + "\n".join(unpoliced)


def test_hinted_loads_come_after_the_wait_for_the_previous_kernel(tmp_path):
    found = kernels(softmax_ptx(tmp_path, ["VEC_READ_ONCE_EVICT_FIRST=1"]))
    # The register and held-cluster kernels read x through LoadHeldVectors; those of 16-byte
    # vectors take the hint (narrower vectors stay plain loads).
    expect_hints_exactly_on(found, [name for name, _ in found if WIDE_HELD.search(name)])


def test_without_the_knob_no_load_carries_a_cache_hint(tmp_path):
    ptx = softmax_ptx(tmp_path)
    assert ".entry" in ptx
    assert "cache_hint" not in ptx and "createpolicy" not in ptx


def test_the_gated_residuals_evict_first_kernels_alone_carry_the_hint(tmp_path):
    found = kernels(template_ptx(tmp_path, "adaln/{{python_name}}_cuda/gated_residual.cu"))
    gated = [(name, body) for name, body in found if "GatedResidualKernel<" in name]
    expect_hints_exactly_on(gated, [name for name, _ in gated if re.search(r", true>\(", name)])


def test_the_gated_activations_evict_first_kernels_of_16_byte_vectors_alone_carry_the_hint(
        tmp_path):
    found = kernels(template_ptx(tmp_path, "swiglu/{{python_name}}_cuda/swiglu.cu"))
    # ElementwiseKernel<V, split, GatedOp<T, Silu, true> >: 16-byte vectors are 8 bf16 / fp16
    # or 4 floats; narrower vectors of the same op stay plain loads.
    wide = re.compile(r"ElementwiseKernel<(8, \w+, kernels_common::GatedOp<(__nv_bfloat16|__half)"
                      r"|4, \w+, kernels_common::GatedOp<float), kernels_common::Silu, true>")
    expect_hints_exactly_on(found, [name for name, _ in found if wide.search(name)])
