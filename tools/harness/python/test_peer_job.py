"""CPU tests of reading the peer worker's JOB file (run: pytest tools/harness/python)."""

import copy
import json
import os
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer_job  # noqa: E402
from peer_job import JobError, parse_job, read_job  # noqa: E402

GOOD = {
    "schema": "kbuild-peer-job/1", "peers_file": "/p/benchmarks/peers.py",
    "project_library": "/p/build/lib.so", "namespace": "my_norm", "graph": False,
    "warmup": 10, "iterations": 100, "peak_gbps": 4273.0,
    "cases": [{"benchmark": "rms_norm", "case": "2048x4096 bf16", "shape": [2048, 4096],
               "dtype": "bf16", "bytes": 33562624.0, "atol": 0.0625, "rtol": 0.0625,
               "correctness_only": False}],
}


def with_change(path, value):
    """GOOD with the field at `path` (keys and indexes) set to value, or deleted if None."""
    doc = copy.deepcopy(GOOD)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


def test_a_good_job_parses():
    job = parse_job(GOOD)
    assert (job.namespace, job.graph, job.warmup, job.iterations) == ("my_norm", False, 10, 100)
    (case,) = job.cases
    assert case.shape == (2048, 4096) and case.dtype is torch.bfloat16
    assert (case.name, case.benchmark, case.device) == ("2048x4096 bf16", "rms_norm", "cuda")
    assert (case.atol, case.rtol, case.bytes) == (0.0625, 0.0625, 33562624.0)


def test_an_empty_library_and_namespace_are_allowed():
    job = parse_job(with_change(["namespace"], "") | {"project_library": ""})
    assert job.project_library == "" and job.namespace == ""


@pytest.mark.parametrize("path, value, message", [
    (["schema"], "kbuild-peer-job/2", 'job: schema "kbuild-peer-job/2" is not "kbuild-peer-job/1"'),
    (["schema"], None, "job: schema null is not"),
    (["peers_file"], None, "job: no 'peers_file'"),
    (["peers_file"], "", "job.peers_file: must be a non-empty string"),
    (["namespace"], "my-norm", "job.namespace: 'my-norm' is not a Python identifier"),
    (["graph"], 1, "job.graph: 1 is not true or false"),
    (["warmup"], True, "job.warmup: true is not an integer"),
    (["warmup"], -1, "job.warmup: -1 is outside 0..100000"),
    (["iterations"], 0, "job.iterations: 0 is outside 1..100000"),
    (["iterations"], 10.5, "job.iterations: 10.5 is not an integer"),
    (["peak_gbps"], "4273", 'job.peak_gbps: "4273" is not a number'),
    (["peak_gbps"], -1, "job.peak_gbps: -1 is not a finite number >= 0"),
    (["dram_gbps"], "4814", 'job.dram_gbps: "4814" is not a number'),
    (["cases"], {}, "job.cases: {} is not a list"),
    (["cases", 0], [], "job.cases[0]: not an object"),
    (["cases", 0, "dtype"], "bf17", "job.cases[0].dtype: 'bf17' is not one of bf16, fp16"),
    (["cases", 0, "shape"], [2, -1], "job.cases[0].shape: expected at most 16 non-negative"),
    (["cases", 0, "shape"], [2, True], "job.cases[0].shape: expected"),
    (["cases", 0, "shape"], [1] * 17, "job.cases[0].shape: expected at most 16"),
    (["cases", 0, "atol"], float("nan"), "job.cases[0].atol: nan is not a finite number"),
    (["cases", 0, "bytes"], 10 ** 400,
     "job.cases[0].bytes: " + "1" + "0" * 79 + " is not a finite number >= 0"),
    (["cases", 0, "rtol"], None, "job.cases[0]: no 'rtol'"),
    (["cases", 0, "correctness_only"], 0, "job.cases[0].correctness_only: 0 is not true"),
    (["cases", 0, "case"], "x" * 5000, "job.cases[0].case: must be a non-empty string under"),
])
def test_each_bad_field_is_named(path, value, message):
    with pytest.raises(JobError) as error:
        parse_job(with_change(path, value))
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_not_an_object_and_too_many_cases(monkeypatch):
    with pytest.raises(JobError, match="job: not a JSON object"):
        parse_job([GOOD])
    monkeypatch.setattr(peer_job, "MAX_CASES", 1)
    with pytest.raises(JobError, match=r"job.cases: 2 cases, more than 1"):
        parse_job(with_change(["cases"], GOOD["cases"] * 2))


def test_read_job_reads_a_file(tmp_path):
    path = tmp_path / "job.json"
    path.write_text(json.dumps(GOOD))
    assert read_job(str(path)).cases[0].shape == (2048, 4096)


def test_read_job_refuses_a_symbolic_link(tmp_path):
    (tmp_path / "real.json").write_text(json.dumps(GOOD))
    os.symlink(tmp_path / "real.json", tmp_path / "job.json")
    with pytest.raises(JobError, match="a symbolic link"):
        read_job(str(tmp_path / "job.json"))


def test_read_job_refuses_a_folder_a_huge_file_and_bad_json(tmp_path, monkeypatch):
    with pytest.raises(JobError, match="not a regular file"):
        read_job(str(tmp_path))
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{\"schema\": ")
    with pytest.raises(JobError, match="not valid JSON"):
        read_job(str(bad))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 90 + "]" * 90)
    with pytest.raises(JobError, match="deep.json: not a JSON object"):
        read_job(str(deep))
    with pytest.raises(JobError, match="cannot open it: No such file"):
        read_job(str(tmp_path / "missing.json"))
    big = tmp_path / "big.json"
    big.write_text(json.dumps(GOOD))
    monkeypatch.setattr(peer_job, "MAX_JOB_BYTES", 100)
    with pytest.raises(JobError, match="larger than 100 bytes"):
        read_job(str(big))


def test_cap_long_calls_is_optional_and_must_be_a_bool():
    assert parse_job(copy.deepcopy(GOOD)).cap_long_calls is True
    assert parse_job(with_change(["cap_long_calls"], False)).cap_long_calls is False
    with pytest.raises(JobError, match="cap_long_calls"):
        parse_job(with_change(["cap_long_calls"], "no"))
