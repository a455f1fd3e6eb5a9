"""Every template: init -> check -> build (sm_90a, venv torch) -> load with `kernels`."""

import json
import re

import pytest

from e2e_support import (describe, discover_templates, init_project, run_python,
                         skip_if_not_implemented, variant_dir)

TEMPLATES = discover_templates()


def op_schemas(project):
    """The schemas the binding registers: the text of each ops.def("...") call."""
    source = (project / "torch-ext" / "torch_binding.cpp").read_text()
    schemas = []
    for literals in re.findall(r'\.def\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', source):
        schemas.append("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', literals)))
    assert schemas, "no ops.def(...) found in torch-ext/torch_binding.cpp"
    return schemas


@pytest.mark.parametrize("template", TEMPLATES)
def test_check_accepts_a_fresh_project(kbuild, tmp_path, template):
    project = init_project(kbuild, template, tmp_path)
    result = kbuild("check", "--json", cwd=project)
    skip_if_not_implemented(result, "check")
    assert result.returncode == 0, describe(result)
    assert json.loads(result.stdout)["ok"] is True


@pytest.mark.parametrize("template", TEMPLATES)
def test_build_writes_a_hub_variant(built_projects, template):
    project = built_projects.get(template)
    variant = variant_dir(project)
    assert re.fullmatch(r"torch\d+-cxx11-cu\d+-x86_64-linux", variant.name)
    metadata = json.loads((variant / "metadata.json").read_text())
    assert metadata["name"] == "e2e-op"
    assert metadata["id"].isidentifier()
    assert metadata["backend"]["type"] == "cuda"
    for required in ("__init__.py", "_ops.py", "e2e_op/__init__.py"):
        assert (variant / required).is_file(), f"{required} missing from {variant}"
    assert list(variant.glob("*.so")), f"no shared library in {variant}"


# Runs in a fresh python: loads the variant the way users do and checks that
# every op is registered with the schema the binding declares, a CUDA kernel
# and a fake (Meta) implementation for torch.compile.
LOAD_SCRIPT = """
import json, sys
from pathlib import Path
import torch
from kernels import get_local_kernel

project, variant, schemas = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
module = get_local_kernel(project)
namespace = json.loads((variant / "metadata.json").read_text())["id"]
assert module.ops is getattr(torch.ops, namespace), (module.ops, namespace)
for text in schemas:
    expected = torch._C.parse_schema(namespace + "::" + text)
    name = expected.name.split("::")[1]
    packet = getattr(getattr(torch.ops, namespace), name)
    got = packet.default._schema
    assert str(got) == str(expected), f"{got} != {expected}"
    qualified = namespace + "::" + name
    for key in ("CUDA", "Meta"):
        assert torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key), (qualified, key)
print("loaded", namespace, len(schemas), "ops")
"""


@pytest.mark.parametrize("template", TEMPLATES)
def test_variant_loads_with_kernels_and_registers_the_ops(built_projects, template):
    project = built_projects.get(template)
    result = run_python(LOAD_SCRIPT, project, variant_dir(project), json.dumps(op_schemas(project)))
    assert result.returncode == 0, describe(result)


@pytest.mark.parametrize("template", TEMPLATES)
def test_variant_loads_with_plain_torch_ops_load_library(built_projects, template):
    project = built_projects.get(template)
    variant = variant_dir(project)
    library = next(variant.glob("*.so"))
    namespace = json.loads((variant / "metadata.json").read_text())["id"]
    names = [schema.split("(")[0] for schema in op_schemas(project)]
    result = run_python(
        "import sys, torch\n"
        "torch.ops.load_library(sys.argv[1])\n"
        "ops = getattr(torch.ops, sys.argv[2])\n"
        "for name in sys.argv[3:]:\n"
        "    getattr(ops, name).default\n", library, namespace, *names)
    assert result.returncode == 0, describe(result)


def test_blank_fake_impl_gives_shapes_under_meta(built_projects):
    project = built_projects.get("blank")
    result = run_python(
        "from pathlib import Path\n"
        "import torch\n"
        "from kernels import get_local_kernel\n"
        f"m = get_local_kernel(Path({str(project)!r}))\n"
        "x = torch.empty(3, 5, device='meta', dtype=torch.bfloat16)\n"
        "out = m.ops.scale_add(x, x, 2.0)\n"
        "assert out.shape == x.shape and out.dtype == x.dtype, out\n")
    assert result.returncode == 0, describe(result)


def test_rebuild_without_changes_compiles_nothing(built_projects, kbuild):
    project = built_projects.get("blank")
    result = kbuild("build", "--json", cwd=project)
    assert result.returncode == 0, describe(result)
    assert json.loads(result.stdout)["compiled"] == 0

