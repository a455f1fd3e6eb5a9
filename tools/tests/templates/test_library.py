"""The kernel library (templates/library/) that every template shares: each template reaches it
through links, never through a copy that could drift, and its host-side parts (row_plan.h,
row_span.h, fast_divmod.h, param_rows.h, softmax's plan) pass their tests on this machine, so a
plan that leaves a vector without a thread, or a wrong quotient, fails CI, not only the GPU run.

Run: .venv/bin/python -m pytest tools/tests/templates
"""

import shutil
import subprocess
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
LIBRARY = TEMPLATES / "library"
LIBRARY_FILES = sorted(p.name for p in LIBRARY.iterdir() if p.suffix in (".h", ".cuh"))


def template_dirs():
    return sorted(p.parent for p in TEMPLATES.glob("*/template.toml"))


def test_the_library_is_not_a_template_and_states_each_contract():
    assert not (LIBRARY / "template.toml").exists()
    readme = (LIBRARY / "README.md").read_text()
    for name in LIBRARY_FILES:
        assert f"`{name}`" in readme, f"templates/library/README.md does not describe {name}"
        head = (LIBRARY / name).read_text().splitlines()[0]
        assert head.startswith("//"), f"{name} does not open with the comment stating its contract"


@pytest.mark.parametrize("template", template_dirs(), ids=lambda p: p.name)
def test_templates_link_library_headers_instead_of_copying_them(template):
    for common in template.rglob("common"):
        for entry in common.iterdir():
            if entry.name not in LIBRARY_FILES:
                continue  # the template's own code on top of the library
            assert entry.is_symlink(), (
                f"{entry.relative_to(TEMPLATES)} is a copy of templates/library/{entry.name}: "
                "replace it by a link, so a fix lands in every template")
            assert entry.resolve() == (LIBRARY / entry.name).resolve(), (
                f"{entry.relative_to(TEMPLATES)} links elsewhere than templates/library/")


# (template, test file): host tests of library parts, compiled against the template's sources.
HOST_TESTS = (
    ("rmsnorm", "row_plan_test.cpp"),
    ("rmsnorm", "row_span_test.cpp"),
    ("rope", "fast_divmod_test.cpp"),
    ("adaln", "param_rows_test.cpp"),
    ("softmax", "softmax_plan_test.cpp"),
)


@pytest.mark.parametrize("template,test_file", HOST_TESTS)
def test_host_side_library_parts_pass_their_tests(tmp_path, template, test_file):
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no g++ on this machine")
    source = (TEMPLATES / template / "tests" / test_file).read_text()
    # The template's own sources, through its links into the library.
    source = source.replace('#include "../{{python_name}}_cuda/',
                            f'#include "{TEMPLATES / template / "{{python_name}}_cuda"}/')
    unit = tmp_path / test_file
    unit.write_text(source)
    binary = tmp_path / "host_test"
    built = subprocess.run([compiler, "-std=c++20", "-O1", str(unit),
                            "-o", str(binary), "-lgtest", "-lgtest_main", "-pthread"],
                           capture_output=True, text=True)
    if built.returncode != 0 and "cannot find -lgtest" in built.stderr:
        pytest.skip("GoogleTest is not installed (tools/scripts/install-deps.sh installs it)")
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout[-4000:]
    assert "[  PASSED  ]" in ran.stdout
