"""Bad input: each case exits with the documented code, says what is wrong, and
never touches anything outside build/."""

import json
import os
import re
from pathlib import Path

import pytest

from e2e_support import (describe, init_project, output_of, skip_if_not_implemented, snapshot)


def edit(path, pattern, replacement):
    text = path.read_text()
    new = re.sub(pattern, replacement, text, count=1, flags=re.M)
    assert new != text, f"{pattern!r} not found in {path}"
    path.write_text(new)


def add_kernel_key(project, line):
    """Adds `line` under the first [kernel.*] table's depends = ... line."""
    edit(project / "build.toml", r'^(depends = \[.*\])$', r"\1\n" + line)


def malformed_toml(project):
    edit(project / "build.toml", r"^\[general\]$", "[general")


def unknown_key(project):
    add_kernel_key(project, 'cuda-capability = ["9.0"]')


def wrong_type(project):
    edit(project / "build.toml", r"^version = 1$", 'version = "1"')


def invalid_name(project):
    edit(project / "build.toml", r'^name = "e2e-op"$', 'name = "E2E_Op"')


# (case, how to break the project, exit code, what the message must say).
# The same answer is expected from `check` and from `build`.
CONFIG_ERRORS = [
    ("malformed-toml", malformed_toml, 2, "build.toml:4:9: invalid TOML"),
    ("unknown-key", unknown_key, 2, "did you mean 'cuda-capabilities'?"),
    ("wrong-type", wrong_type, 2, "'version' must be an integer"),
    ("invalid-name", invalid_name, 2, "invalid project name 'E2E_Op'"),
]


@pytest.fixture
def project(kbuild, tmp_path):
    return init_project(kbuild, "blank", tmp_path)


def run_and_snapshot(kbuild, project, *args, env=None):
    before = snapshot(project)
    result = kbuild(*args, cwd=project, env=env)
    skip_if_not_implemented(result, args[0])
    assert snapshot(project) == before, "files outside build/ changed"
    return result


@pytest.mark.parametrize("command", ["check", "build"])
@pytest.mark.parametrize("case,breaker,code,message", CONFIG_ERRORS,
                         ids=[c[0] for c in CONFIG_ERRORS])
def test_config_errors(kbuild, project, command, case, breaker, code, message):
    breaker(project)
    result = run_and_snapshot(kbuild, project, command)
    assert result.returncode == code, describe(result)
    assert message in result.stderr, describe(result)
    assert "hint: " in result.stderr, describe(result)


def test_config_errors_in_json(kbuild, project):
    unknown_key(project)
    result = run_and_snapshot(kbuild, project, "check", "--json")
    assert result.returncode == 2, describe(result)
    doc = json.loads(result.stdout)
    assert doc["ok"] is False
    assert "unknown key 'cuda-capability'" in json.dumps(doc)


def test_missing_source_file(kbuild, project):
    (project / "e2e_op_cuda" / "scale_add.cu").unlink()
    check = run_and_snapshot(kbuild, project, "check")
    assert check.returncode == 1, describe(check)
    assert "source file 'e2e_op_cuda/scale_add.cu' in [kernel.scale_add] does not exist" in check.stderr
    build = run_and_snapshot(kbuild, project, "build")
    assert build.returncode != 0, describe(build)
    assert "e2e_op_cuda/scale_add.cu" in output_of(build), describe(build)


@pytest.mark.parametrize("capability,arch", [("7.7", "compute_77"), ("12.9", "compute_129")])
def test_capability_the_installed_nvcc_lacks(kbuild, project, capability, arch):
    add_kernel_key(project, f'cuda-capabilities = ["{capability}"]')
    check = run_and_snapshot(kbuild, project, "check")
    assert check.returncode == 1, describe(check)
    assert f"CUDA capability '{capability}'" in check.stderr
    assert "is not supported by the installed nvcc" in check.stderr
    build = run_and_snapshot(kbuild, project, "build")
    assert build.returncode in (2, 3), describe(build)
    assert capability in build.stderr or arch in build.stderr, describe(build)


def test_no_nvcc(kbuild, project, tmp_path):
    empty_cuda = tmp_path / "empty-cuda"
    empty_cuda.mkdir()
    path = os.pathsep.join(d for d in kbuild.env["PATH"].split(os.pathsep)
                           if d and not (Path(d) / "nvcc").exists())
    env = dict(kbuild.env, PATH=path, CUDA_HOME=str(empty_cuda))
    result = run_and_snapshot(kbuild, project, "build", env=env)
    assert result.returncode == 4, describe(result)
    assert "nvcc not found" in result.stderr, describe(result)
    assert str(empty_cuda) in result.stderr, describe(result)
    assert "hint: " in result.stderr


def test_no_torch(kbuild, project, tmp_path):
    fake_python = tmp_path / "python-without-torch"
    fake_python.write_text("#!/bin/sh\n"
                           "echo \"ModuleNotFoundError: No module named 'torch'\" >&2\n"
                           "exit 1\n")
    fake_python.chmod(0o755)
    env = dict(kbuild.env, KBUILD_PYTHON=str(fake_python))
    for var in ("KBUILD_TORCH_DIR", "Torch_DIR"):
        env.pop(var, None)
    result = run_and_snapshot(kbuild, project, "build", env=env)
    assert result.returncode == 4, describe(result)
    assert "torch not found" in result.stderr, describe(result)
    assert "KBUILD_PYTHON" in result.stderr, describe(result)


def test_build_dir_from_another_torch_is_reconfigured(kbuild, built_projects):
    project = built_projects.get("blank")
    key_file = project / "build" / "cmake" / "kbuild-key.json"
    assert key_file.is_file(), "kbuild build wrote no build/cmake/kbuild-key.json"
    key = json.loads(key_file.read_text())
    key["torch"]["version"] = "2.9.1+cu128"
    key_file.write_text(json.dumps(key))
    result = run_and_snapshot(kbuild, project, "build")
    assert result.returncode == 0, describe(result)
    assert "configured for another torch/CUDA" in result.stderr, describe(result)
    assert "configure (cmake)" in result.stderr, describe(result)
    assert json.loads(key_file.read_text())["torch"]["version"] != "2.9.1+cu128"


def test_unknown_command(kbuild, tmp_path):
    result = kbuild("chek", cwd=tmp_path)
    assert result.returncode == 2, describe(result)
    assert "did you mean 'check'?" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_unknown_option(kbuild, project):
    result = run_and_snapshot(kbuild, project, "build", "--archs", "9.0")
    assert result.returncode == 2, describe(result)
    assert "--archs" in result.stderr


@pytest.mark.parametrize("command", [("profile", "--launch-count"), ("test", "--timeout"),
                                     ("tune", "--time"), ("optimize", "--time")])
@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_a_number_that_must_be_positive_says_so_briefly(kbuild, tmp_path, command, value):
    result = kbuild(*command, value, cwd=tmp_path)
    assert result.returncode == 2, describe(result)
    assert f"{command[1]}: Value {value} is not a number greater than 0" in result.stderr, \
        describe(result)
    assert len(result.stderr) < 300, "no number printed in full: " + describe(result)
    assert list(tmp_path.iterdir()) == []
