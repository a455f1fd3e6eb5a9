"""Every A/B knob of the templates' kernels compiles at each of its other values.

A knob is a macro a kernel's sources define when the build does not (`#ifndef NAME` then
`#define NAME <integer>`), set with `kbuild build --define NAME=VALUE` for an A/B run on the GPU
(tools/scripts/gpu-run.sh, GPU_RUN_DEFINES). A knob build that does not compile shows up only
there, after a machine start; this finds it here. Knobs a template's kbuild.toml lists under
[tune.params] are `kbuild tune`'s to vary and are left out. The values tried: those a
static_assert on the knob lists (`NAME == 1 || NAME == 2`), else 0 and 1, less the default. A
knob of the shared library (templates/library) is tried in each kernel file whose own sources
name it (the launches its A/B runs time). No GPU needed: nvcc compiles each variant to PTX here.

Run: .venv/bin/python -m pytest tools/tests/templates/test_knobs_compile.py
"""

import functools
import re
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from test_vector_loads import TEMPLATES, find_nvcc, kernel_files, ptx_of, rendered

LIBRARY = TEMPLATES / "library"
KNOB = re.compile(r"^#ifndef (\w+)\n#define \1 (\d+)\b", re.M)


def knobs_in(text: str):
    return {name: int(default) for name, default in KNOB.findall(text)}


def listed_values(name: str, text: str):
    return {int(v) for v in re.findall(rf"\b{name}\s*==\s*(\d+)", text)}


def own_sources(unit: Path):
    """The unit and the headers of its kernel folder that are not the library's (links
    followed: a template may share a header with another)."""
    headers = [p for p in sorted(unit.parent.rglob("*"))
               if p.is_file() and p.suffix in (".h", ".cuh")
               and LIBRARY.resolve() not in p.resolve().parents]
    return [unit, *headers]


def tune_params(unit: Path):
    config = unit.parent.parent / "kbuild.toml"
    if not config.is_file():
        return set()
    return set(tomllib.loads(config.read_text()).get("tune", {}).get("params", {}))


@functools.cache
def library_text():
    return "\n".join(p.read_text() for p in sorted(LIBRARY.glob("*.cuh"))
                     + sorted(LIBRARY.glob("*.h")))


def library_knobs():
    return knobs_in(library_text())


def variants(unit: Path, library: dict):
    """(unit, NAME=VALUE) for each other value of each knob the unit's own sources define or
    name (a library knob), tune parameters aside."""
    text = "\n".join(p.read_text() for p in own_sources(unit))
    knobs = knobs_in(text)
    for name, default in library.items():
        if name not in knobs and re.search(rf"\b{name}\b", text):
            knobs[name] = default
    tuned = tune_params(unit)
    found = []
    for name, default in sorted(knobs.items()):
        if name in tuned:
            continue
        # A library knob's values are listed where the library defines it.
        values = (listed_values(name, text)
                  or (name in library and listed_values(name, library_text())) or {0, 1})
        found += [(unit, f"{name}={v}") for v in sorted(values - {default})]
    return found


def test_the_knobs_and_their_values_are_found():
    adaln = next(u for u in kernel_files() if u.name == "adaptive_norm.cu")
    head = next(u for u in kernel_files() if u.name == "head_rms_norm.cu")
    rope = next(u for u in kernel_files() if u.name == "rope.cu")
    library = library_knobs()
    assert {"EVICT_READS_FIRST_RULE", "VEC_READ_ONCE_EVICT_FIRST"} <= set(library)
    adaln_defines = {d for _, d in variants(adaln, library)}
    assert {"ADALN_EARLY_MODULATION=0", "ADALN_EARLY_MODULATION=1",
            "ADALN_PER_TOKEN_BLOCK1=0", "VEC_READ_ONCE_EVICT_FIRST=1",
            "EVICT_READS_FIRST_RULE=0"} <= adaln_defines
    assert "ADALN_EARLY_MODULATION=2" not in adaln_defines  # the default
    swiglu = next(u for u in kernel_files() if u.name == "swiglu.cu")
    # a library knob's values come from the library's static_assert
    swiglu_defines = {d for _, d in variants(swiglu, library)}
    assert {"ELEMENTWISE_SMALL_BLOCK_THREADS=0",
            "ELEMENTWISE_SMALL_BLOCK_THREADS=64"} <= swiglu_defines
    assert "ELEMENTWISE_SMALL_BLOCK_THREADS=128" not in swiglu_defines  # the library's default
    head_defines = {d for _, d in variants(head, library)}
    assert {"HEAD_RMSNORM_ROWS=1", "HEAD_RMSNORM_ROWS=4"} <= head_defines
    assert "HEAD_RMSNORM_ROWS=0" not in head_defines  # its static_assert allows 1, 2, 4
    # rope's macros are all tune parameters (kbuild.toml [tune.params]).
    assert not [d for _, d in variants(rope, library) if d.startswith("ROPE_")]


def test_every_knob_compiles_at_its_other_values(tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("no nvcc on this machine")
    library = library_knobs()
    todo = [v for unit in kernel_files() for v in variants(unit, library)]
    assert len(todo) >= 10, "the knobs were not found"

    def compile_variant(job):
        index, (unit, define) = job
        copy = rendered(unit, tmp_path / f"variant{index}")
        try:
            return ptx_of(nvcc, copy, [define])
        except AssertionError as failed:  # nvcc's message, with the knob that broke it
            raise AssertionError(f"--define {define}: {failed}") from None

    with ThreadPoolExecutor(max_workers=2) as pool:  # two cores here and in CI
        list(pool.map(compile_variant, enumerate(todo)))
