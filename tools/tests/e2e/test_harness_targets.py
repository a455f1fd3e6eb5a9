"""Every template's tests/*.cpp and benchmarks/*.cpp compile through `kbuild test` / `kbuild bench`.

Without a GPU the commands build the binaries first and only then stop with exit 4, so a broken test
or benchmark is caught here. With a GPU they run for real in tools/scripts/gpu-run.sh instead.
`--build-only` compiles the same binaries and stops with exit 0, on any machine.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from e2e_support import REPO_ROOT, describe, discover_templates, init_project, output_of

TEMPLATES = discover_templates()


def gpu_visible():
    if shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


@pytest.mark.parametrize("command", ["test", "bench"])
@pytest.mark.parametrize("template", TEMPLATES)
def test_harness_binaries_compile_then_no_gpu_is_reported(kbuild, built_projects, template,
                                                          command):
    if gpu_visible():
        pytest.skip("a GPU is visible: tests and benchmarks run in tools/scripts/gpu-run.sh")
    project = built_projects.get(template)
    result = kbuild(command, cwd=project, timeout=1800)
    assert result.returncode == 4, describe(result)
    text = output_of(result)
    assert f"kbuild {command} needs a CUDA GPU" in text, describe(result)
    assert "the binaries compiled" in text, describe(result)


@pytest.mark.parametrize("command, target", [("test", "kbuild_tests"),
                                             ("bench", "kbuild_benchmarks")])
def test_build_only_compiles_and_stops_without_looking_for_a_gpu(kbuild, built_projects, command,
                                                                  target):
    project = built_projects.get("blank")
    result = kbuild(command, "--build-only", "--json", cwd=project, timeout=1800)
    assert result.returncode == 0, describe(result)
    doc = json.loads(result.stdout)
    assert doc["command"] == command and doc["ok"] is True and doc["exit_code"] == 0, doc
    assert doc["build_only"] is True and doc["target"] == target, doc
    assert Path(doc["binary"]) == project / "build" / "cmake" / target, doc
    assert Path(doc["binary"]).is_file(), doc
    assert {"compiled", "linked", "configured", "build_seconds", "seconds", "log"} <= doc.keys()
    assert "gpu" not in doc, "no GPU was looked for"
    # Built once: the next run (here, or the real one on a GPU machine) compiles nothing.
    again = kbuild(command, "--build-only", cwd=project, timeout=600)
    assert again.returncode == 0, describe(again)
    assert again.stdout.startswith(f"built build/cmake/{target} (compile 0 files, nothing to link"), \
        describe(again)
    if not gpu_visible():
        run = kbuild(command, cwd=project, timeout=600)
        assert run.returncode == 4, describe(run)
        assert "compile 0 files" in run.stderr, describe(run)


def test_the_harness_library_is_built_once_and_shared_by_projects(kbuild, base_env, tmp_path):
    """kbuild build compiles the ops only; test and bench link the harness library kbuild builds
    once per torch/CUDA/kbuild version in KBUILD_CACHE_DIR/harness/, so a project compiles its
    own files: blank's kernel, binding and one test or benchmark file."""
    first = init_project(kbuild, "blank", tmp_path, "first")
    fresh_cache = tmp_path / "cache"
    built = kbuild("build", cwd=first, env=dict(base_env, KBUILD_CACHE_DIR=str(fresh_cache)))
    assert built.returncode == 0, describe(built)
    assert not (fresh_cache / "harness").exists(), "kbuild build must not build the harness"

    tested = kbuild("test", "--build-only", cwd=first, timeout=1800)  # builds it, or reuses it
    assert tested.returncode == 0, describe(tested)
    second = init_project(kbuild, "blank", tmp_path, "second")
    benched = kbuild("bench", "--build-only", "--json", cwd=second, timeout=1800)
    assert benched.returncode == 0, describe(benched)
    assert "shared harness library" not in benched.stderr, describe(benched)
    assert json.loads(benched.stdout)["compiled"] == 3, describe(benched)
    cmake_lists = (second / "build" / "cmake" / "CMakeLists.txt").read_text()
    prebuilt = Path(base_env["KBUILD_CACHE_DIR"]) / "harness"
    assert f"set(KBUILD_HARNESS_PREBUILT_DIR [[{prebuilt}/" in cmake_lists, cmake_lists


def test_build_only_is_in_help_and_refuses_no_project(kbuild, tmp_path):
    for command in ("test", "bench"):
        help_text = kbuild(command, "--help").stdout
        assert "--build-only" in help_text and "With --build-only: 0 built" in help_text
        result = kbuild(command, "--build-only", "--json", cwd=tmp_path)
        assert result.returncode == 2, describe(result)
        assert json.loads(result.stdout)["ok"] is False


@pytest.fixture(scope="module")
def bad_kernels_project(kbuild, tmp_path_factory):
    """A copy of the wrong-kernel suite (tools/harness/bad_kernels), built once."""
    project = tmp_path_factory.mktemp("bad") / "bad_kernels"
    shutil.copytree(REPO_ROOT / "tools" / "harness" / "bad_kernels", project,
                    ignore=shutil.ignore_patterns("build", "results"))
    result = kbuild("build", cwd=project, timeout=1800)
    assert result.returncode == 0, describe(result)
    return project


@pytest.mark.parametrize("command", ["test", "bench"])
def test_wrong_kernel_suite_compiles_then_no_gpu_is_reported(kbuild, bad_kernels_project,
                                                             command):
    """The wrong kernels stay in CI's build; gpu-run.sh proves on the GPU that each is rejected."""
    if gpu_visible():
        pytest.skip("a GPU is visible: the wrong-kernel suite runs in tools/scripts/gpu-run.sh")
    result = kbuild(command, cwd=bad_kernels_project, timeout=1800)
    assert result.returncode == 4, describe(result)
    assert "the binaries compiled" in output_of(result), describe(result)
