"""build.toml and source names are hostile: sources stay inside the project, odd
names reach the compiler exactly, and what cannot link fails the build."""

import os

import pytest

from e2e_support import describe, init_project, output_of, snapshot

SOURCE = "e2e_op_cuda/scale_add.cu"


@pytest.fixture()
def project(kbuild, tmp_path):
    return init_project(kbuild, "blank", tmp_path)


def relist(project, new_entry):
    """Points the kernel's src entry for scale_add.cu at `new_entry` (TOML basic string)."""
    toml = project / "build.toml"
    text = toml.read_text()
    assert f'"{SOURCE}"' in text
    toml.write_text(text.replace(f'"{SOURCE}"', f'"{new_entry}"', 1))


def check_and_build(kbuild, project):
    """`kbuild check` then `kbuild build`; neither may hang or touch the project."""
    before = snapshot(project)
    check = kbuild("check", cwd=project, timeout=120)
    build = kbuild("build", cwd=project, timeout=120)
    assert snapshot(project) == before, "files outside build/ changed"
    return check, build


def assert_located(result, code, message):
    assert result.returncode == code, describe(result)
    assert "build.toml:" in result.stderr and message in result.stderr, describe(result)
    assert "hint: " in result.stderr, describe(result)


def test_symlink_to_a_file_outside_the_project(kbuild, project, tmp_path):
    outside = tmp_path / "secret.cu"
    outside.write_text("__global__ void k() {}\n")
    (project / SOURCE).unlink()
    (project / SOURCE).symlink_to(outside)
    check, build = check_and_build(kbuild, project)
    assert_located(check, 1, f"source file '{SOURCE}' in [kernel.scale_add] is a symlink")
    assert_located(build, 2, "is a symlink")


def test_symlinked_parent_folder(kbuild, project, tmp_path):
    real = tmp_path / "elsewhere"
    (project / "e2e_op_cuda").rename(real)
    (project / "e2e_op_cuda").symlink_to(real)
    check, build = check_and_build(kbuild, project)
    assert_located(check, 1, "lies under the symlink 'e2e_op_cuda'")
    assert_located(build, 2, "lies under the symlink 'e2e_op_cuda'")


@pytest.mark.parametrize("entry,message", [
    ("../outside.cu", "leads outside the project directory"),
    ("/etc/passwd", "is an absolute path"),
    ("a;b.cu", "contains a ';'"),
    ("a$ENV{HOME}.cu", "contains a '$'"),
    ("a$(touch pwned).cu", "contains a '$'"),
])
def test_paths_build_toml_may_not_name(kbuild, project, entry, message):
    relist(project, entry)
    check, build = check_and_build(kbuild, project)
    assert_located(check, 2, f"'src' entry '{entry}' in [kernel.scale_add] {message}")
    assert_located(build, 2, message)


def test_fifo_directory_and_symlink_loop_as_sources(kbuild, project):
    os.mkfifo(project / "fifo.cu")
    (project / "dir.cu").mkdir()
    (project / "loop.cu").symlink_to(project / "loop.cu")
    toml = project / "build.toml"
    toml.write_text(toml.read_text().replace(f'"{SOURCE}"', f'"{SOURCE}", "fifo.cu", "dir.cu", '
                                             '"loop.cu"', 1))
    check, build = check_and_build(kbuild, project)
    for message in ("'fifo.cu' in [kernel.scale_add] is not a regular file",
                    "'dir.cu' in [kernel.scale_add] is a directory",
                    "'loop.cu' in [kernel.scale_add] is a symlink"):
        assert_located(check, 1, message)
    assert_located(build, 2, "'fifo.cu' in [kernel.scale_add] is not a regular file")


def test_unlisted_included_header(kbuild, project):
    (project / "e2e_op_cuda" / "extra.cuh").write_text("#pragma once\n")
    source = project / SOURCE
    source.write_text('#include "extra.cuh"\n' + source.read_text())
    check = kbuild("check", cwd=project)
    assert check.returncode == 1, describe(check)
    assert (f"{SOURCE}:1:1: 'e2e_op_cuda/extra.cuh' is included but not listed in "
            "[kernel.scale_add] src") in check.stderr, describe(check)


def test_nasty_file_name_builds_that_exact_file(kbuild, project):
    nasty = "e2e_op_cuda/a b'q #{x}(y)&.cu"
    (project / SOURCE).rename(project / nasty)
    relist(project, nasty)
    check = kbuild("check", cwd=project)
    assert check.returncode == 0, describe(check)
    build = kbuild("build", cwd=project)
    assert build.returncode == 0, describe(build)
    assert list((project / "build").glob("torch*/*.so")), describe(build)


def test_undefined_launcher_is_a_build_error_naming_it(kbuild, project):
    source = project / SOURCE
    text = source.read_text()
    assert "\ncudaError_t LaunchScaleAdd(" in text
    source.write_text(text.replace("\ncudaError_t LaunchScaleAdd(", "\ncudaError_t Unused(", 1))
    build = kbuild("build", cwd=project)
    assert build.returncode == 3, describe(build)
    assert "undefined symbol 'e2e_op_cuda::LaunchScaleAdd(void*, void const*" in build.stderr, \
        describe(build)
    assert "torch_binding.cpp" in build.stderr, describe(build)
    assert "built " not in output_of(build), describe(build)
