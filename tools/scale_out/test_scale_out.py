"""The scale-out kit without a GPU: check.py's verdicts on made-up run folders (linear enough
or not, a repeated or lost attempt, GPUs that disagree, the kill recorded or not) and run.sh's
usage. gpu-run.sh's switch is listed in tools/tests/scripts/test_gpu_run_modes.py."""

import json
import subprocess
import sys
from pathlib import Path


HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import check  # noqa: E402


def write_run(out, name, per_minute, records, key="verdict", **extra):
    doc = {"throughput": {"judged_now": len(records), "seconds": 600.0, "workers": 1,
                          "per_minute": per_minute}, **extra}
    (out / f"{name}.json").write_text(json.dumps(doc))
    (out / name).mkdir()
    lines = [json.dumps({"id": i, key: v}) for i, v in records]
    (out / name / "history.jsonl").write_text("\n".join(lines) + "\n")


def good_folder(out, n=2, optimize_n=1.9, tune_n=1.95, vs_run=(1.0, 0.99)):
    attempts = [("baseline", "ok"), ("a0001", "ok"), ("a0002", "test_failed")]
    variants = [("defaults", "done"), ("v-1", "done"), ("v-1", "done")]  # a finalist again
    write_run(out, "optimize-1gpu", 1.0, attempts)
    write_run(out, "tune-1gpu", 2.0, variants, key="stage")
    if n == 1:
        return
    write_run(out, f"optimize-{n}gpu", optimize_n, attempts, gpu_baselines=[
        {"worker": w, "device": str(w), "vs_run": v, "problem": ""} for w, v in enumerate(vs_run)])
    write_run(out, "optimize-kill", 1.5, attempts, worker_failures=[
        {"worker": 1, "device": "1", "attempt": "a0002", "reason": "killed by signal 9"}])
    write_run(out, f"tune-{n}gpu", 2 * tune_n, variants, key="stage")


def verdicts(capsys, out, n=2):
    code = check.main(["check.py", str(out), str(n)])
    return code, capsys.readouterr().out


def test_a_run_that_scales_and_records_everything_once_passes(tmp_path, capsys):
    good_folder(tmp_path)
    code, text = verdicts(capsys, tmp_path)
    assert code == 0, text
    assert "| optimize | 2 | 3 | 600 | 1.90 | 1.90x |" in text
    assert "PASS: optimize throughput on 2 GPUs: 0.95 of linear (needs 0.9)" in text
    assert "PASS: tune-2gpu: 2 variants, lost []" in text
    assert "PASS: the GPUs' baselines agree within 1.0%" in text
    assert "PASS: a worker killed mid-run: worker 1 (GPU 1) retired, a0002 judged again" in text


def test_too_little_scaling_fails(tmp_path, capsys):
    good_folder(tmp_path, optimize_n=1.7)
    code, text = verdicts(capsys, tmp_path)
    assert code == 1
    assert "FAIL: optimize throughput on 2 GPUs: 0.85 of linear" in text


def test_gpus_that_disagree_fail(tmp_path, capsys):
    good_folder(tmp_path, vs_run=(1.0, 0.95))
    code, text = verdicts(capsys, tmp_path)
    assert code == 1
    assert "FAIL: the GPUs' baselines agree within 5.3% (needs 3%)" in text


def test_a_repeated_or_lost_attempt_fails(tmp_path, capsys):
    good_folder(tmp_path)
    (tmp_path / "optimize-2gpu" / "history.jsonl").write_text(
        '{"id": "baseline", "verdict": "ok"}\n{"id": "a0001", "verdict": "ok"}\n'
        '{"id": "a0001", "verdict": "ok"}\n{"id": "a0002", "verdict": "lost"}\n')
    code, text = verdicts(capsys, tmp_path)
    assert code == 1
    assert "FAIL: optimize-2gpu: repeated ['a0001'], lost ['a0002']" in text


def test_a_kill_that_left_no_record_or_a_lost_candidate_fails(tmp_path, capsys):
    good_folder(tmp_path)
    doc = json.loads((tmp_path / "optimize-kill.json").read_text())
    doc["worker_failures"] = []
    (tmp_path / "optimize-kill.json").write_text(json.dumps(doc))
    code, text = verdicts(capsys, tmp_path)
    assert code == 1
    assert "FAIL: a worker killed mid-run: worker_failures []" in text


def test_one_gpu_skips_what_needs_two(tmp_path, capsys):
    good_folder(tmp_path, n=1)
    code, text = verdicts(capsys, tmp_path, n=1)
    assert code == 0, text
    assert "SKIP: throughput scaling: one GPU only" in text
    assert "SKIP: a worker killed mid-run: needs 2 GPUs" in text


def test_run_sh_wants_two_folders():
    r = subprocess.run(["bash", str(HERE / "run.sh")], capture_output=True, text=True)
    assert r.returncode == 2
    assert "usage:" in r.stderr
