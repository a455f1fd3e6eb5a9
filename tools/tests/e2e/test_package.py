"""kbuild package end to end: init the blank template, build it (nvcc, venv torch), package
it, and load the packaged folder with `kernels` the way a user of the Hub repo would."""

import json
import os
from pathlib import Path

import pytest

from e2e_support import describe, has_nvcc, init_project, run_python, variant_dir


@pytest.fixture(scope="module")
def built(kbuild, tmp_path_factory):
    if not has_nvcc():
        pytest.skip("no nvcc: kbuild build cannot compile the template here")
    project = init_project(kbuild, "blank", tmp_path_factory.mktemp("package"))
    result = kbuild("build", "--json", cwd=project)
    assert result.returncode == 0, describe(result)
    return project


# Loads the package folder (not the project) and calls nothing that needs a GPU: the op and
# its schema are registered, and the fake implementation gives shapes on the meta device.
LOAD_PACKAGE = """
import sys
from pathlib import Path
import torch
from kernels import get_local_kernel

k = get_local_kernel(Path(sys.argv[1]))
assert callable(k.scale_add), k
x = torch.empty(3, 5, device="meta", dtype=torch.bfloat16)
assert k.ops.scale_add(x, x, 2.0).shape == x.shape
# No backward: the Python API refuses autograd, and works without it.
w = x.clone().requires_grad_()
try:
    k.scale_add(w, x, 2.0)
    raise SystemExit("scale_add took a tensor that requires grad")
except RuntimeError as e:
    assert "scale_add has no backward" in str(e), e
with torch.no_grad():
    assert k.scale_add(w, x, 2.0).shape == x.shape
print(k.ops.scale_add.default._schema)
"""


def test_package_writes_a_hub_folder_that_kernels_loads(kbuild, built):
    result = kbuild("package", "--repo-id", "acme/e2e-op", "--json", cwd=built)
    assert result.returncode == 0, describe(result)
    doc = json.loads(result.stdout)
    package = Path(doc["package_dir"])
    assert package.resolve() == (built / "dist" / "e2e-op").resolve()
    variant = variant_dir(built).name
    paths = {f["path"] for f in doc["files"]}
    for expected in ("README.md", ".kbuild-package", "build.toml", f"build/{variant}/metadata.json",
                     "torch-ext/e2e_op/__init__.py", "torch-ext/torch_binding.cpp",
                     "e2e_op_cuda/scale_add.cu", "tests/scale_add_test.cpp",
                     "benchmarks/scale_add_bench.cpp"):
        assert expected in paths, (expected, sorted(paths))
    assert not any(p.startswith(("build/cmake", "build/logs")) for p in paths), sorted(paths)
    on_disk = {p.relative_to(package).as_posix() for p in package.rglob("*") if p.is_file()}
    assert on_disk == paths
    assert doc["upload_command"] == ("hf upload acme/e2e-op dist/e2e-op . "
                                     "--repo-type kernel --revision v1")
    card = (package / "README.md").read_text()
    assert card.startswith("---\nlibrary_name: kernels\nlicense: apache-2.0\n"), card
    assert 'get_kernel("acme/e2e-op", version=1)' in card
    assert "No benchmark recorded" in card

    loaded = run_python(LOAD_PACKAGE, package)
    assert loaded.returncode == 0, describe(loaded)
    assert "scale_add(Tensor x, Tensor y, float alpha=1.) -> Tensor" in loaded.stdout


def test_package_refuses_a_symlink_and_a_changed_variant_writing_nothing(kbuild, built, tmp_path):
    out = "dist/refused"
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the Hub\n")
    link = built / "tests" / "leak_test.cpp"
    os.symlink(secret, link)
    try:
        result = kbuild("package", "--out", out, cwd=built)
        assert result.returncode == 2, describe(result)
        assert "refusing to package a symbolic link" in result.stderr, describe(result)
        assert str(Path("tests") / "leak_test.cpp") in result.stderr, describe(result)
    finally:
        link.unlink()
    assert not (built / out).exists()
    assert [p.name for p in (built / "dist").iterdir() if p.name.startswith(".")] == []

    library = next(variant_dir(built).glob("*.so"))
    original = library.read_bytes()
    library.write_bytes(original + b"\0")
    try:
        result = kbuild("package", "--out", out, "--json", cwd=built)
    finally:
        library.write_bytes(original)
    assert result.returncode == 1, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["path"].endswith(library.name) and "kbuild build" in error["hint"], error
    assert not (built / out).exists()


def test_package_out_of_the_project_is_refused(kbuild, built):
    result = kbuild("package", "--out", "../elsewhere", cwd=built)
    assert result.returncode == 2, describe(result)
    assert "inside the project" in result.stderr
    assert not (built.parent / "elsewhere").exists()
