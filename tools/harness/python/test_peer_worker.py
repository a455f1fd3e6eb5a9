"""CPU tests of the peer worker's entry point (run: pytest tools/harness/python)."""

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import peer_worker  # noqa: E402
from peer_job import parse_job  # noqa: E402
from peer_worker import WorkerError, project_ops, raise_compile_limits  # noqa: E402

WORKER = HERE / "peer_worker.py"


def run_worker(*args):
    return subprocess.run([sys.executable, str(WORKER), *args], capture_output=True, text=True,
                          timeout=120)


def job_doc(tmp_path, **change):
    doc = {"schema": "kbuild-peer-job/1", "peers_file": str(tmp_path / "peers.py"),
           "project_library": "", "namespace": "", "graph": False, "warmup": 1,
           "iterations": 2, "peak_gbps": 0, "cases": []}
    doc.update(change)
    return doc


def test_help_describes_the_options_and_exit_codes():
    result = run_worker("--help")
    assert result.returncode == 0
    for text in ("--job JOB.json", "--out OUT.json", "exit status:", "peers.py does not import",
                 "tools/harness/python/README.md"):
        assert text in result.stdout


def test_a_missing_option_is_a_usage_error():
    assert run_worker("--job", "x.json").returncode == 2


def test_a_bad_job_fails_with_one_line(tmp_path):
    (tmp_path / "job.json").write_text(json.dumps(job_doc(tmp_path, schema="other/1")))
    result = run_worker("--job", str(tmp_path / "job.json"), "--out", str(tmp_path / "o.json"))
    assert result.returncode == 1
    assert result.stderr == ('peer_worker: job.json: schema "other/1" is not '
                             '"kbuild-peer-job/1" (kbuild and its data folder are from '
                             'different versions?)\n')
    assert not (tmp_path / "o.json").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a CUDA device")
def test_no_cuda_device_fails_with_one_line(tmp_path):
    (tmp_path / "job.json").write_text(json.dumps(job_doc(tmp_path)))
    result = run_worker("--job", str(tmp_path / "job.json"), "--out", str(tmp_path / "o.json"))
    assert result.returncode == 1
    assert result.stderr.endswith("sees no CUDA device (torch.cuda.is_available() is False)\n")
    assert result.stderr.count("\n") == 1


def test_compile_limits_are_raised_where_they_exist():
    config = types.SimpleNamespace(recompile_limit=8, accumulated_recompile_limit=100000000)
    assert raise_compile_limits(config) == ["recompile_limit", "accumulated_recompile_limit"]
    assert config.recompile_limit == peer_worker.COMPILE_LIMIT
    assert config.accumulated_recompile_limit == 100000000  # never lowered
    import torch._dynamo.config as dynamo_config

    assert "recompile_limit" in raise_compile_limits(dynamo_config)  # torch 2.11 names it so
    assert dynamo_config.recompile_limit >= peer_worker.COMPILE_LIMIT


def test_the_ops_namespace_is_aten_without_a_library(tmp_path):
    job = parse_job(job_doc(tmp_path))
    assert project_ops(job) is torch.ops.aten
    named = parse_job(job_doc(tmp_path, namespace="prims"))
    assert project_ops(named) is torch.ops.prims


def test_a_missing_or_broken_library_is_a_worker_error(tmp_path):
    with pytest.raises(WorkerError, match="does not exist"):
        project_ops(parse_job(job_doc(tmp_path, project_library=str(tmp_path / "no.so"))))
    broken = tmp_path / "broken.so"
    broken.write_bytes(b"not an ELF file")
    with pytest.raises(WorkerError, match="cannot load the project library .*broken.so: OSError"):
        project_ops(parse_job(job_doc(tmp_path, project_library=str(broken))))
