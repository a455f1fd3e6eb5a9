"""CPU tests of the peer benchmark's pure parts (run: pytest tools/peer_bench)."""

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import correctness  # noqa: E402
import measure  # noqa: E402
import shapes  # noqa: E402
import variant_loader  # noqa: E402


def test_norm_bytes_counts_both_directions_and_weight():
    assert shapes.norm_bytes(8192, 4096, 2, 2) == 2 * 8192 * 4096 * 2 + 4096 * 2
    assert shapes.norm_bytes(128, 4096, 2, 4, tensors_moved=4) == 4 * 128 * 4096 * 2 + 4096 * 4


def test_shape_sets_match_the_brief():
    assert [s[2] for s in shapes.QWEN3] == [1, 128, 512, 1024, 2048, 4096, 8192, 32768]
    assert [(s[2], s[3]) for s in shapes.LTX] == [
        (1024, 2048), (2048, 2048), (4096, 2048), (4096, 2048), (8192, 2048),
        (8192, 3072), (16384, 3072)]
    assert shapes.LARGE[0][2:] == (32768, 8192)


@pytest.mark.parametrize("layout", ["contiguous", "misaligned", "strided", "3d"])
def test_make_input_layouts(layout):
    g = torch.Generator().manual_seed(0)
    x = correctness.make_input(3, 10, torch.bfloat16, layout, g, device="cpu")
    assert x.shape[0] == 3 and x.shape[-1] == 10 and x.stride(-1) == 1
    if layout == "misaligned":
        assert x.storage_offset() == 1
    if layout == "strided":
        assert x.stride(0) == 18


def test_reference_matches_composite_and_compare_rejects_nan():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 64, generator=g)
    w = torch.randn(64, generator=g)
    ref = correctness.rms_norm_ref(x, w, 1e-6)
    composite = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    assert torch.allclose(ref.float(), composite, atol=1e-5)
    assert correctness.compare("ok", composite, ref, torch.float32)["ok"]
    bad = composite.clone()
    bad[0, 0] = float("nan")
    assert not correctness.compare("nan", bad, ref, torch.float32)["ok"]


def test_geomean_ignores_missing():
    assert measure.geomean([1.0, 4.0, None]) == pytest.approx(2.0)
    assert measure.geomean([None]) is None


def test_variant_dir_lookup(tmp_path):
    major, minor = torch.__version__.split(".")[:2]
    variant = tmp_path / "build" / f"torch{major}{minor}-cxx11-cu130-x86_64-linux"
    variant.mkdir(parents=True)
    (variant / "__init__.py").write_text("VALUE = 3\n")
    (variant / "_ops.py").write_text("")
    for p in (tmp_path, tmp_path / "build", variant):
        assert variant_loader.find_variant_dir(str(p)) == variant
    assert variant_loader.load_variant(str(tmp_path)).VALUE == 3
    with pytest.raises(FileNotFoundError, match="kbuild build"):
        variant_loader.find_variant_dir(str(tmp_path / "missing"))


def _compile_and_read_sass(tmp_path, source):
    import kernel_resources

    nvcc = kernel_resources.find_nvcc()
    cuobjdump = kernel_resources.find_cuobjdump()
    if not nvcc or not cuobjdump:
        pytest.skip("needs nvcc and cuobjdump (CUDA_HOME or triton's copy) to read SASS")
    cu = tmp_path / "k.cu"
    cu.write_text(source)
    obj = tmp_path / "k.o"
    kernel_resources.subprocess.run(
        [str(nvcc), "-std=c++17", "-O3", kernel_resources.GENCODE, "-c", str(cu), "-o", str(obj)],
        check=True, capture_output=True)
    return kernel_resources.sass_memory_ops(cuobjdump, obj)


def test_sass_check_tells_a_kernel_that_waits_first_from_one_that_loads_first(tmp_path):
    ops = _compile_and_read_sass(tmp_path, r"""
__global__ void WaitsFirst(float* y, const float* x) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  y[threadIdx.x] = x[threadIdx.x] * 2.f;
}
__global__ void LoadsFirst(float* y, const float* x) {
  const float v = x[threadIdx.x];
  asm volatile("griddepcontrol.wait;" ::: "memory");
  y[threadIdx.x] = v * 2.f;
}
""")
    by_name = {name: info for name, info in ops.items()}
    waits = next(v for k, v in by_name.items() if "WaitsFirst" in k)
    loads = next(v for k, v in by_name.items() if "LoadsFirst" in k)
    assert waits["waits_first"] is True and waits["counts"]
    assert loads["waits_first"] is False


NORM_TEMPLATES = ("rmsnorm", "fused_add_rmsnorm", "head_rmsnorm")


def test_norm_templates_share_one_copy_of_each_shared_file():
    """The norm templates are separate projects, so each carries the shared headers, among them
    the one row planner (common/row_plan.h); the copies are links to rmsnorm's files. A copy
    that drifts would give one op another launch plan than the others."""
    templates = Path(__file__).resolve().parents[2] / "templates"
    source = templates / "rmsnorm"
    shared = [p.relative_to(source) for p in (source / "{{python_name}}_cuda" / "common").iterdir()]
    shared += [Path("torch-ext/tensor_checks.h"), Path("benchmarks/norm_peers.py")]
    shared += [p.relative_to(source) for p in (source / "tests").iterdir()
               if not p.name.startswith("rms_norm_")]  # the op's own tests are not shared
    for template in NORM_TEMPLATES:
        planner = templates / template / "{{python_name}}_cuda" / "common" / "row_plan.h"
        assert planner.is_file(), f"{template} has no common/row_plan.h"
        assert "common/row_plan.h" in (templates / template / "kernels.toml.in").read_text()
        for rel in shared:
            copy = templates / template / rel
            if copy.exists():
                assert copy.read_bytes() == (source / rel).read_bytes(), (
                    f"templates/{template}/{rel} differs from templates/rmsnorm/{rel}: edit the "
                    "file in rmsnorm/ (the other templates link to it)")


def test_the_launch_sweep_compiles_against_the_template_kernels(tmp_path):
    """gpu-run.sh builds the sweep on the GPU machine; it calls the template's kernel directly,
    so a change of the kernel's parameters must show here, not there."""
    import kernel_resources

    nvcc = kernel_resources.find_nvcc()
    if not nvcc:
        pytest.skip("needs nvcc (CUDA_HOME or /usr/local/cuda)")
    root = Path(__file__).resolve().parents[2]
    result = kernel_resources.subprocess.run(
        [str(nvcc), "-O3", "-std=c++17", "-arch=sm_90a",
         "-I", str(root / "templates" / "rmsnorm" / "{{python_name}}_cuda"),
         str(root / "tools" / "peer_bench" / "rmsnorm_launch_sweep.cu"), "-o",
         str(tmp_path / "sweep")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-4000:]


def test_ncu_beside_peers_says_in_one_line_why_a_job_cannot_run(tmp_path, capsys):
    import ncu_beside_peers

    job = tmp_path / "job.json"
    job.write_text('{"schema": "something else"}')
    assert ncu_beside_peers.main(["--job", str(job)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("ncu_beside_peers: ") and "\n" not in err and "schema" in err
    assert ncu_beside_peers.main(["--job", str(tmp_path / "missing.json")]) == 1
    assert "cannot open it" in capsys.readouterr().err
