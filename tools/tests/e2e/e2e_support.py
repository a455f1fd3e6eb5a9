"""Helpers for kbuild's end-to-end tests (fixtures are in conftest.py)."""

import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_BIN = REPO_ROOT / "_build" / "tools" / "kbuild" / "kbuild"
# The python that has torch and the `kernels` package (the one running pytest).
VENV_PYTHON = Path(sys.executable)
# A command that has not landed yet answers with this message; tests skip then.
NOT_IMPLEMENTED = "not implemented"


def discover_templates():
    """Every folder under templates/ with a template.toml, sorted."""
    return sorted(p.parent.name for p in (REPO_ROOT / "templates").glob("*/template.toml"))


def discover_commands():
    """The subcommands in kbuild's command table (commands/command.h), in order."""
    table = (REPO_ROOT / "tools/kbuild/src/commands/command.h").read_text()
    return re.findall(r'\{"([a-z-]+)",\s*Add\w+Command\b', table)


class Kbuild:
    """Runs the kbuild binary and returns the CompletedProcess (text mode)."""

    def __init__(self, binary, env):
        self.binary = binary
        self.env = env

    def __call__(self, *args, cwd=None, env=None, timeout=900):
        return subprocess.run([str(self.binary), *map(str, args)], cwd=cwd,
                              env=env if env is not None else self.env, text=True,
                              capture_output=True, timeout=timeout)


def output_of(result):
    return result.stdout + result.stderr


def describe(result):
    """A failure message showing what kbuild said."""
    return (f"exit code {result.returncode}\n--- stdout ---\n{result.stdout}"
            f"\n--- stderr ---\n{result.stderr}")


def skip_if_not_implemented(result, command):
    if NOT_IMPLEMENTED in output_of(result):
        pytest.skip(f"'kbuild {command}' is not implemented yet")


def snapshot(project):
    """Content hash of every file outside build/ (what bad input must never touch)."""
    state = {}
    for path in sorted(project.rglob("*")):
        rel = path.relative_to(project)
        if rel.parts[0] == "build" or not path.is_file():
            continue
        state[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def init_project(kbuild, template, parent, name="e2e-op"):
    """`kbuild init` into parent/<name>; returns the project path."""
    project = parent / name
    result = kbuild("init", name, "--template", template, "--dir", project)
    assert result.returncode == 0, describe(result)
    return project


def variant_dir(project):
    """The single build/torch*-cxx11-cu*-x86_64-linux/ folder."""
    variants = sorted((project / "build").glob("torch*-cxx11-cu*-*-linux"))
    assert len(variants) == 1, f"expected one variant dir in {project / 'build'}, got {variants}"
    return variants[0]


class BuiltProjects:
    """Builds each template's project once per session (builds take ~40 s)."""

    def __init__(self, kbuild, root):
        self.kbuild = kbuild
        self.root = root
        self.results = {}

    def get(self, template):
        if template not in self.results:
            project = init_project(self.kbuild, template, self.root / template)
            result = self.kbuild("build", "--json", cwd=project)
            self.results[template] = (project, result)
        project, result = self.results[template]
        skip_if_not_implemented(result, "build")
        assert result.returncode == 0, describe(result)
        return project


def run_python(code, *args, cwd=None, timeout=300):
    """Runs `code` (sys.argv[1:] = args) with the venv python in a fresh process,
    so each test loads its shared library into a clean interpreter."""
    return subprocess.run([str(VENV_PYTHON), "-c", code, *map(str, args)], cwd=cwd, text=True,
                          capture_output=True, timeout=timeout)


def has_nvcc():
    return shutil.which("nvcc") is not None or Path("/usr/local/cuda/bin/nvcc").exists()


def load_run_module(example):
    """examples/<example>/run.py as a module of its own name: both examples have a run.py, so a
    plain `import run` would give the second test the first one's."""
    path = REPO_ROOT / "examples" / example / "run.py"
    spec = importlib.util.spec_from_file_location(f"{example}_run", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
