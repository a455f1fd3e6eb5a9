"""Fixtures for kbuild's end-to-end tests: they run the real binary.

Run: .venv/bin/python -m pytest tools/tests/e2e   (KBUILD_BIN=path overrides the binary)
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from e2e_support import DEFAULT_BIN, VENV_PYTHON, BuiltProjects, Kbuild
from queue_support import CLUSTER, FAKE_CHILD


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


@pytest.fixture(scope="session")
def cluster():
    """A one-node Slurm cluster (tools/tests/slurm/one_node_cluster.sh: two fake GPUs, partition
    `ci`, the controller on port 16817), one for the whole session: two at once would share the
    port, so no two Slurm tests may run at the same time."""
    missing = [p for p in ("slurmctld", "slurmd", "munged", "sbatch") if not shutil.which(p)]
    if missing:
        pytest.skip(f"no Slurm here ({', '.join(missing)} not on PATH): tools/scripts/"
                    "install-deps.sh --test installs slurmctld, slurmd, slurm-client and munge")
    if os.geteuid() != 0:
        pytest.skip("the one-node Slurm cluster runs its daemons as root")
    folder = Path("/tmp") / f"kbuild-slurm-{os.getpid()}"  # short: munge's socket path
    started = subprocess.run(["bash", str(CLUSTER), "start", str(folder)], text=True,
                             capture_output=True, timeout=120)
    assert started.returncode == 0, started.stdout + started.stderr
    yield folder
    subprocess.run(["bash", str(CLUSTER), "stop", str(folder)], timeout=120)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def slurm_env(kbuild, cluster, tmp_path):
    """kbuild's environment with SLURM_CONF; the jobs inherit it (sbatch exports all)."""
    return dict(kbuild.env, SLURM_CONF=str(cluster / "slurm.conf"),
                FAKE_HANG_MARKER=str(tmp_path / "hanging"))


@pytest.fixture
def worker_kbuild(kbuild, tmp_path):
    """What the array tasks run: the real kbuild worker, its children the fake."""
    wrapper = tmp_path / "worker-kbuild.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{kbuild.binary}" "$@" --child-kbuild "{FAKE_CHILD}" '
                       "--idle-exit 120\n")
    wrapper.chmod(0o755)
    return wrapper
