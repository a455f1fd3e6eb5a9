"""Every template's tests/*.cpp and benchmarks/*.cpp compile through `kbuild test` / `kbuild bench`.

Without a GPU the commands build the binaries first and only then stop with exit 4, so a broken test
or benchmark is caught here. With a GPU they run for real in tools/scripts/gpu-run.sh instead.
"""

import shutil
import subprocess

import pytest

from e2e_support import REPO_ROOT, describe, discover_templates, output_of

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
