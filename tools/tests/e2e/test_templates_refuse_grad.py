"""SKILL.md's rule, held by every template: an op without a backward refuses autograd. Every
public function of a template's Python package that calls one of its ops calls refuse_grad
(the library's no_backward.py, linked into the package) first, on its tensor arguments; the
check raises only with grad mode on and a tensor that requires grad. test_package.py loads a
built package and calls it."""

import ast
import importlib.util
import sys
from pathlib import Path

import pytest
import torch

from e2e_support import REPO_ROOT, discover_templates

LIBRARY = REPO_ROOT / "templates" / "library" / "no_backward.py"


def package_init(template):
    found = list((REPO_ROOT / "templates" / template / "torch-ext").glob("*/__init__.py"))
    assert len(found) == 1, found
    return found[0]


def ops_calls_without_a_check_first(tree):
    """Names of functions that call ops.<x>(...) with no refuse_grad(...) call before it."""
    unguarded = []
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        calls = sorted((c for c in ast.walk(fn) if isinstance(c, ast.Call)),
                       key=lambda c: (c.lineno, c.col_offset))
        checked = False
        for call in calls:
            f = call.func
            if isinstance(f, ast.Name) and f.id == "refuse_grad":
                checked = True
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id == "ops" and not checked):
                unguarded.append(fn.name)
                break
    return unguarded


@pytest.mark.parametrize("template", discover_templates())
def test_every_op_call_of_the_package_refuses_grad_first(template):
    init = package_init(template)
    link = init.parent / "_no_backward.py"
    assert link.is_symlink() and link.resolve() == LIBRARY.resolve(), link
    assert ops_calls_without_a_check_first(ast.parse(init.read_text())) == []


def test_the_check_finds_an_unguarded_op_call():
    tree = ast.parse("def f(x):\n    return ops.f(x)\n\n"
                     "def g(x):\n    refuse_grad('g', x)\n    return ops.g(x)\n")
    assert ops_calls_without_a_check_first(tree) == ["f"]


def test_refuse_grad_raises_only_when_autograd_would_record():
    spec = importlib.util.spec_from_file_location("no_backward", LIBRARY)
    module = importlib.util.module_from_spec(spec)
    sys.modules["no_backward"] = module  # dynamo looks the function's module up by name
    spec.loader.exec_module(module)
    plain, weight = torch.ones(2), torch.ones(2, requires_grad=True)
    module.refuse_grad("op", plain, None)
    with pytest.raises(RuntimeError, match="op has no backward"):
        module.refuse_grad("op", plain, weight)
    with torch.no_grad():
        module.refuse_grad("op", plain, weight)
    with torch.inference_mode():
        module.refuse_grad("op", plain, weight)
    compiled = torch.compile(lambda x, w: (module.refuse_grad("op", x, w), x + 1)[1],
                             fullgraph=True, backend="eager")
    with torch.no_grad():
        assert torch.equal(compiled(plain, weight), plain + 1)
