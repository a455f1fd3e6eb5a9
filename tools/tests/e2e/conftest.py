"""Fixtures for kbuild's end-to-end tests: they run the real binary.

Run: .venv/bin/python -m pytest tools/tests/e2e   (KBUILD_BIN=path overrides the binary)
"""

import os
from pathlib import Path

import pytest

from e2e_support import DEFAULT_BIN, VENV_PYTHON, BuiltProjects, Kbuild


@pytest.fixture(scope="session")
def kbuild_bin():
    path = Path(os.environ.get("KBUILD_BIN", DEFAULT_BIN)).resolve()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"kbuild binary not found at {path}: build it (cmake -B _build -G Ninja && "
                    f"ninja -C _build kbuild) or set KBUILD_BIN")
    return path


@pytest.fixture(scope="session")
def base_env(tmp_path_factory):
    """Environment for kbuild: torch from this venv, a private cache dir."""
    env = dict(os.environ)
    for var in ("KBUILD_TORCH_DIR", "Torch_DIR", "KBUILD_HOME"):
        env.pop(var, None)
    env["KBUILD_PYTHON"] = str(VENV_PYTHON)
    env["KBUILD_CACHE_DIR"] = str(tmp_path_factory.mktemp("kbuild-cache"))
    return env


@pytest.fixture(scope="session")
def kbuild(kbuild_bin, base_env):
    return Kbuild(kbuild_bin, base_env)


@pytest.fixture(scope="session")
def built_projects(kbuild, tmp_path_factory):
    return BuiltProjects(kbuild, tmp_path_factory.mktemp("built"))