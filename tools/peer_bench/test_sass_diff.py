"""sass_diff.py on a one-file template of two kernels, one of which reads a macro."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import kernel_resources  # noqa: E402
import sass_diff  # noqa: E402

KERNELS = r"""
#ifndef SCALE
#define SCALE 2
#endif
__global__ void Scaled(float* y, const float* x) { y[threadIdx.x] = x[threadIdx.x] * SCALE; }
__global__ void Copied(float* y, const float* x) { y[threadIdx.x] = x[threadIdx.x]; }
"""


@pytest.fixture
def repo(tmp_path):
    if not kernel_resources.find_nvcc() or not kernel_resources.find_cuobjdump():
        pytest.skip("needs nvcc and cuobjdump (PATH, CUDA_HOME or triton's copy) to read SASS")
    kernels = tmp_path / "templates" / "fake" / "{{python_name}}_cuda"
    kernels.mkdir(parents=True)
    (kernels / "fake.cu").write_text(KERNELS)
    return tmp_path


def diff(repo, capsys, *args):
    code = sass_diff.main(["fake", "--repo", str(repo), *args])
    return code, capsys.readouterr().out


def test_a_macro_the_kernel_reads_changes_that_kernel_only(repo, capsys):
    code, out = diff(repo, capsys, "-b", "SCALE=3")
    assert code == 0
    assert "fake.cu: 2 kernels, 1 identical, 1 differ, 0 only in A, 0 only in B" in out
    assert "Scaled: registers" in out and "Copied:" not in out
    code, _ = diff(repo, capsys, "-b", "SCALE=3", "--expect-identical")
    assert code == 1


def test_the_default_value_spelled_out_is_identical(repo, capsys):
    code, out = diff(repo, capsys, "-a", "SCALE=2", "--expect-identical")
    assert code == 0, out
    assert "2 identical, 0 differ" in out


def test_a_revision_against_the_working_tree(repo, capsys):
    def git(*args):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "kernels")
    code, out = diff(repo, capsys, "--rev-a", "HEAD", "--expect-identical")
    assert code == 0, out
    cu = repo / "templates" / "fake" / "{{python_name}}_cuda" / "fake.cu"
    cu.write_text(KERNELS.replace("x[threadIdx.x]; }", "x[threadIdx.x] + 1.f; }")
                  + "__global__ void Added(float* y) { y[0] = 0.f; }\n")
    code, out = diff(repo, capsys, "--rev-a", "HEAD", "--expect-identical")
    assert code == 1
    assert "3 kernels, 1 identical, 1 differ, 0 only in A, 1 only in B" in out
    assert "only in B: Added" in out


def test_bad_input_is_refused_before_compiling(repo, capsys):
    with pytest.raises(SystemExit) as stop:
        diff(repo, capsys, "-b", "SCALE=3;rm -rf /")
    assert stop.value.code == 2
    with pytest.raises(SystemExit) as stop:
        diff(repo, capsys, "--rev-a=--output=/tmp/x")
    assert stop.value.code == 2
    with pytest.raises(SystemExit, match="git archive no-such-rev"):
        sass_diff.main(["fake", "--repo", str(repo), "--rev-a", "no-such-rev"])
    assert sass_diff.main(["missing", "--repo", str(repo)]) == 2
    assert "no template 'missing' in the working tree" in capsys.readouterr().out


def test_an_added_bool_argument_is_matched_to_the_kernel_without_it(repo, capsys):
    def git(*args):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    cu = repo / "templates" / "fake" / "{{python_name}}_cuda" / "fake.cu"
    cu.write_text(KERNELS + "template <int N, bool kSplit> __global__ void Strided(float* y) {\n"
                  "  y[N] = kSplit ? 4.f : 1.f; }\n"
                  "template __global__ void Strided<4, false>(float*);\n"
                  "template __global__ void Strided<4, true>(float*);\n")
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "kernels")
    # B: a twin for one case, the old code where the new argument is false.
    # Strided<4, false, true> less its first false would name A's Strided<4, true>: only a
    # trailing argument counts.
    cu.write_text(KERNELS + "template <int N, bool kSplit, bool kTwin> __global__ void Strided(\n"
                  "    float* y) { y[N] = kTwin ? 2.f : kSplit ? 4.f : 1.f; }\n"
                  "template __global__ void Strided<4, false, false>(float*);\n"
                  "template __global__ void Strided<4, true, false>(float*);\n"
                  "template __global__ void Strided<4, false, true>(float*);\n")
    code, out = diff(repo, capsys, "--rev-a", "HEAD", "--expect-identical")
    assert code == 1 and "7 kernels, 2 identical, 0 differ, 2 only in A, 3 only in B" in out
    code, out = diff(repo, capsys, "--rev-a", "HEAD", "--added-arg", "false")
    assert "matched to A's without an added false: 2" in out
    assert "5 kernels, 4 identical, 0 differ, 0 only in A, 1 only in B" in out
    assert "only in B: Strided<4, false, true>" in out
    # A changed body under the old name is still caught.
    cu.write_text(cu.read_text().replace("kSplit ? 4.f : 1.f", "kSplit ? 4.f : 3.f"))
    code, out = diff(repo, capsys, "--rev-a", "HEAD", "--added-arg", "false")
    assert "5 kernels, 3 identical, 1 differ, 0 only in A, 1 only in B" in out


def test_kernels_apart_only_by_an_enum_argument_keep_their_own_registers():
    # c++filt spells enum template arguments "(Kind)0": the name must not end there.
    log = "".join(
        f"ptxas info    : Function properties for {mangled}\n"
        f"    0 bytes stack frame, {spill} bytes spill stores, {spill} bytes spill loads\n"
        f"ptxas info    : Used {registers} registers, used 0 barriers\n"
        for mangled, registers, spill in [("_Z6KernelIL4Kind0EEvv", 32, 0),
                                          ("_Z6KernelIL4Kind1EEvPi", 40, 8)])
    usage = kernel_resources.ptxas_usage(log)
    assert {name: (u["registers"], u["spill_stores"]) for name, u in usage.items()} == {
        "Kernel<(Kind)0>": (32, 0), "Kernel<(Kind)1>": (40, 8)}
