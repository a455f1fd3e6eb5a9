"""The acceptance kit without a GPU: the naive kernel's index arithmetic and rules, its [tune]
space, the check's verdicts on made-up histories, the projects make_projects.sh writes (with a
kbuild binary: KBUILD_BIN or kbuild on PATH), the kernel's build at the multi-warp points (with
nvcc) and gpu-run.sh's listing of the switch. Run: pytest tools/optimize_acceptance
"""
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import check_results  # noqa: E402
import index_check  # noqa: E402

TSV = ("n\tcandidate\texpected verdict\n1\tdoes not compile\tcompile_error\n"
       "2\tfast\tok, the best\n3\tcheats\trule_broken or test_failed\n")


def record(id_, verdict, score=0.0, times=None, defines=None):
    cases = [{"name": f"rms_norm/{n} bf16", "median_us": t} for n, t in (times or {}).items()]
    return {"id": id_, "verdict": verdict, "score": score, "first_error": "", "cases": cases,
            "defines": defines or {}}


def write_run(folder, records):
    folder.mkdir(parents=True)
    (folder / "history.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(folder)


def test_index_arithmetic():
    assert index_check.main() == 0


def space_of_make_projects():
    """{name: [values]} of the [tune.params] make_projects.sh writes."""
    text = (HERE / "make_projects.sh").read_text()
    return {m[1]: [int(v) for v in m[2].split(",")]
            for m in re.finditer(r"^(NAIVE_\w+) = \[([^\]]*)\]$", text, re.M)}


def test_every_point_of_the_space_is_a_valid_launch():
    space = space_of_make_projects()
    assert list(space) == ["NAIVE_LANES", "NAIVE_VEC", "NAIVE_BLOCK"]
    assert [values[0] for values in space.values()] == [1, 1, 128]  # the naive start
    kernel = (HERE / "naive_rms_norm.cu").read_text()
    most_lanes = int(re.search(r"NAIVE_LANES <= (\d+)", kernel)[1])
    # The kernel's static_asserts; rows of 3072-8192 elements need more than a warp's lanes.
    assert all(1 <= n <= most_lanes and n & (n - 1) == 0 for n in space["NAIVE_LANES"])
    assert max(space["NAIVE_LANES"]) > 32
    assert set(space["NAIVE_VEC"]) <= {1, 2, 4, 8}
    assert all(32 <= n <= 1024 and n % 32 == 0 for n in space["NAIVE_BLOCK"])
    rnd = random.Random(2)
    for lanes, vec, block in itertools.product(*space.values()):
        for rows, hidden in ((3, 3072), (5, 100), (2, 7)):
            loads = vec if hidden % vec == 0 else 1  # the launcher's fallback
            assert index_check.check(rnd, rows, hidden, lanes, loads, block) == "", \
                (lanes, vec, block, rows, hidden)


def test_every_thread_reaches_the_barrier():
    """Rows of more than 32 lanes sum across warps after a __syncthreads that every thread of
    the block must reach: the kernel returns only after it (out-of-range rows and lanes stay
    alive with predicates), and it launches the block its __launch_bounds__ names."""
    kernel = (HERE / "naive_rms_norm.cu").read_text()
    body = kernel[kernel.index("    NaiveRmsNormKernel("):kernel.index("\nbool Aligned(")]
    assert body.count("__syncthreads()") == 1
    assert not re.search(r"\breturn\b", body[:body.index("__syncthreads()")])
    assert "__launch_bounds__(kBlockThreads)" in kernel
    assert re.search(r"<<<[^,]+, kBlockThreads, 0, stream>>>", kernel)


def test_scripted_passes_with_the_expected_verdicts(tmp_path):
    (tmp_path / "c.tsv").write_text(TSV)
    run = write_run(tmp_path / "s", [record("baseline", "ok", 1, {"a": 9}),
                                     record("a0001", "compile_error"),
                                     record("a0002", "ok", 9.0, {"a": 1}),
                                     record("a0003", "test_failed")])
    assert check_results.check_scripted(run, tmp_path / "c.tsv")


def test_processes_left_running_fail_the_part(tmp_path):
    (tmp_path / "c.tsv").write_text(TSV)
    run = write_run(tmp_path / "s", [record("baseline", "ok", 1, {"a": 9}),
                                     record("a0001", "compile_error"),
                                     record("a0002", "ok", 9.0, {"a": 1}),
                                     record("a0003", "test_failed")])
    (tmp_path / "s" / "leftovers.txt").write_text("4242 build/cmake/kbuild_tests\n")
    assert not check_results.check_scripted(run, tmp_path / "c.tsv")


@pytest.mark.parametrize("a2, a3", [(("ok", 0.5), ("rule_broken", 0)),  # fast not the best
                                    (("ok", 9.0), ("ok", 10.0)),        # the cheat passed
                                    (("crashed", 0), ("rule_broken", 0))])
def test_scripted_fails_on_a_wrong_verdict_or_winner(tmp_path, a2, a3):
    (tmp_path / "c.tsv").write_text(TSV)
    run = write_run(tmp_path / "s", [record("baseline", "ok", 1, {"a": 9}),
                                     record("a0001", "compile_error"),
                                     record("a0002", *a2), record("a0003", *a3),
                                     record("a0004", "ok", 1.0)])
    assert not check_results.check_scripted(run, tmp_path / "c.tsv")


@pytest.mark.parametrize("best_us, passes", [(12.0, True), (12.6, False)])
def test_builtin_compares_the_best_with_the_template(tmp_path, best_us, passes):
    run = write_run(tmp_path / "b", [record("baseline", "ok", 1, {"2048x4096": 100.0}),
                                     record("a0001", "ok", 100 / best_us, {"2048x4096": best_us},
                                            {"NAIVE_LANES": "32"})])
    bench = {"run": {"gpu": "test"}, "harness": {"cases": [
        {"benchmark": "rms_norm", "case": "2048x4096 bf16", "verdict": "ok",
         "time_us": {"median": 10.0}}]}}
    (tmp_path / "t.json").write_text(json.dumps(bench))
    assert check_results.check_builtin(run, tmp_path / "t.json") == passes  # 10/12.5 = 80%


def kbuild_binary():
    found = os.environ.get("KBUILD_BIN") or shutil.which("kbuild")
    built = ROOT / "_build" / "tools" / "kbuild" / "kbuild"
    return found or (str(built) if built.exists() else None)


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    """(WORKDIR, kbuild, env) after make_projects.sh WORKDIR."""
    kbuild = kbuild_binary()
    if not kbuild:
        pytest.skip("no kbuild binary (set KBUILD_BIN or build it: tools/scripts/build-kbuild.sh)")
    work = tmp_path_factory.mktemp("projects")
    env = dict(os.environ, PATH=f"{Path(kbuild).parent}{os.pathsep}{os.environ['PATH']}",
               KBUILD_HOME=str(ROOT))
    subprocess.run(["bash", str(HERE / "make_projects.sh"), str(work)], check=True, env=env,
                   capture_output=True)
    return work, kbuild, env


def test_make_projects(projects):
    tmp_path, kbuild, env = projects
    kernel = "naive_rmsnorm_cuda/rms_norm.cu"
    naive = (tmp_path / "naive-rmsnorm" / kernel).read_text()
    assert "{{" not in naive and "namespace naive_rmsnorm_cuda {" in naive
    rows = (tmp_path / "candidates.tsv").read_text().splitlines()[1:]
    assert [r.split("\t")[0] for r in rows] == [str(n) for n in range(1, 8)]
    for n in range(1, 8):
        files = list((tmp_path / "candidates" / str(n)).rglob("*"))
        assert [f.relative_to(tmp_path / "candidates" / str(n)).as_posix() for f in files
                if f.is_file()] == [kernel]
    assert (tmp_path / "candidates/6" / kernel).read_text() == \
        (tmp_path / "template-rmsnorm/template_rmsnorm_cuda/rms_norm.cu").read_text().replace(
            "template_rmsnorm_cuda", "naive_rmsnorm_cuda")
    tests = (tmp_path / "naive-rmsnorm/tests/rms_norm_test.cpp").read_text()
    assert "Huge" not in tests.replace("AndHugeInputs", "")
    tune = tomllib.loads((tmp_path / "naive-rmsnorm/kbuild.toml").read_text())["tune"]
    assert tune["params"] == space_of_make_projects() and "constraints" not in tune
    subprocess.run([kbuild, "-C", str(tmp_path / "naive-rmsnorm"), "check"], check=True, env=env,
                   capture_output=True)


def test_rows_across_warps_compile_without_spills(projects):
    """The multi-warp points at their widest loads, as kbuild builds them for the H200
    (compile_space.py over the whole space takes about half a minute on two cores)."""
    if not shutil.which("nvcc"):
        pytest.skip("no nvcc on PATH")
    lanes = ",".join(str(n) for n in space_of_make_projects()["NAIVE_LANES"] if n > 32)
    done = subprocess.run([sys.executable, str(HERE / "compile_space.py"),
                           str(projects[0] / "naive-rmsnorm"), f"NAIVE_LANES={lanes}",
                           "NAIVE_VEC=8", "NAIVE_BLOCK=128"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "bytes smem" in done.stdout


def test_gpu_run_lists_the_switch():
    env = dict(os.environ, GPU_RUN_OPTIMIZE="scripted", GPU_RUN_TEMPLATES="none",
               GPU_RUN_SELFTESTS="0")
    out = subprocess.run(["bash", str(ROOT / "tools/scripts/gpu-run.sh"), "--trust", "--dry-run"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert "would run: kbuild optimize acceptance (scripted)" in out
