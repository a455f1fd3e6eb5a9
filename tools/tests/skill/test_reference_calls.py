"""Facts the references state about the libraries they call, checked against the installed
library: one truth across the pack (references/transformers.md, diffusers.md, kernel-hub.md)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
REFERENCES = sorted((ROOT / "references").glob("*.md"))


def test_kernels_get_local_kernel_refuses_a_str_path(tmp_path):
    kernels = pytest.importorskip("kernels")
    with pytest.raises(TypeError):
        kernels.get_local_kernel(str(tmp_path))


def test_no_reference_passes_a_str_to_get_local_kernel():
    calls = [(p.name, m.group(0)) for p in REFERENCES
             for m in re.finditer(r"get_local_kernel\(\s*[rbuf]?[\"']", p.read_text())]
    assert calls == [], "get_local_kernel needs a pathlib.Path (a str raises TypeError)"
