"""The acceptance kit without a GPU: the naive kernel's index arithmetic, the check's verdicts on
made-up histories, the projects make_projects.sh writes (with a kbuild binary: KBUILD_BIN or
kbuild on PATH) and gpu-run.sh's listing of the switch. Run: pytest tools/optimize_acceptance
"""
import json
import os
import shutil
import subprocess
import sys
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


def test_make_projects(tmp_path):
    kbuild = kbuild_binary()
    if not kbuild:
        pytest.skip("no kbuild binary (set KBUILD_BIN or build it: tools/scripts/build-kbuild.sh)")
    env = dict(os.environ, PATH=f"{Path(kbuild).parent}{os.pathsep}{os.environ['PATH']}",
               KBUILD_HOME=str(ROOT))
    subprocess.run(["bash", str(HERE / "make_projects.sh"), str(tmp_path)], check=True, env=env,
                   capture_output=True)
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
    subprocess.run([kbuild, "-C", str(tmp_path / "naive-rmsnorm"), "check"], check=True, env=env,
                   capture_output=True)


def test_gpu_run_lists_the_switch():
    env = dict(os.environ, GPU_RUN_OPTIMIZE="scripted", GPU_RUN_TEMPLATES="none",
               GPU_RUN_SELFTESTS="0")
    out = subprocess.run(["bash", str(ROOT / "tools/scripts/gpu-run.sh"), "--trust", "--dry-run"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert "would run: kbuild optimize acceptance (scripted)" in out
