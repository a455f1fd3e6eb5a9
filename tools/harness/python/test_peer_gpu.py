"""GPU tests of the peer worker's timing rules and of the worker end to end (run on the GPU
machine: pytest tools/harness/python; without CUDA every test here skips, saying so)."""

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gpu_clock import cycles_per_us, elapsed_us, events, spin  # noqa: E402
from peer_timing import time_calls  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs a CUDA GPU (torch.cuda.is_available() is False)")


def busy_wait_us(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def gpu_sleep_us(us):
    torch.cuda._sleep(int(us * cycles_per_us()))


def naive_event_median_us(call, count=20):
    """Events around each call with nothing ahead of it: the host's time leaks in."""
    samples = []
    for _ in range(count):
        start, stop = events(2)
        start.record()
        call(0)
        stop.record()
        stop.synchronize()
        samples.append(elapsed_us(start, stop))
    return sorted(samples)[count // 2]


def test_the_spin_lasts_about_as_long_as_asked():
    cycles_per_us()  # calibrated once, before the measured spins
    start, stop = events(2)
    for asked in (200.0, 5000.0):
        start.record()
        spin(asked)
        stop.record()
        stop.synchronize()
        assert 0.8 * asked < elapsed_us(start, stop) < 1.25 * asked + 20


def test_host_time_of_a_peer_is_not_counted_as_gpu_time():
    def host_heavy(_):  # 200 us of Python around a 5 us kernel
        busy_wait_us(100)
        gpu_sleep_us(5)
        busy_wait_us(100)

    assert naive_event_median_us(host_heavy) > 150  # the setup can tell the two apart
    timing = time_calls(host_heavy, warmup=5, iterations=50)
    assert timing.problem == ""
    assert timing.median < 30, timing
    assert timing.host_us_per_call >= 200


def test_work_on_a_side_stream_is_caught():
    side = torch.cuda.Stream()

    def on_side_stream(_):
        with torch.cuda.stream(side):
            gpu_sleep_us(500)

    timing = time_calls(on_side_stream, warmup=2, iterations=20)
    assert "work runs on another stream" in timing.problem
    on_current = time_calls(lambda _: gpu_sleep_us(500), warmup=2, iterations=20)
    assert on_current.problem == "" and 400 < on_current.median < 700


def test_a_host_slower_than_its_pilot_is_reported():
    warmup, iterations = 2, 20
    calls = [0]

    def slow_after_the_pilot(_):
        calls[0] += 1
        # The timed loop (the pilot: 20 timed, 20 bare); slower than even the last attempt's
        # spin (4 x 1.5 x the pilot's host time per call) covers.
        if calls[0] > warmup + 2 * iterations:
            busy_wait_us(2000)
        gpu_sleep_us(2)

    timing = time_calls(slow_after_the_pilot, warmup=warmup, iterations=iterations)
    assert timing.problem.startswith("the host fell behind the GPU"), timing


def test_one_stall_of_the_host_retimes_its_chunk_instead_of_refusing():
    warmup, iterations = 2, 20
    calls = [0]

    def stalls_once(_):
        calls[0] += 1
        # The fifth call of the timed loop. The chunk's spin is 1.5 x its host time, flushes
        # included: on the H200 a 3 ms stall hid inside it and no call was late. 50 ms cannot.
        if calls[0] == warmup + 2 * iterations + 5:
            busy_wait_us(50_000)
        gpu_sleep_us(2)

    timing = time_calls(stalls_once, warmup=warmup, iterations=iterations)
    assert timing.problem == "", timing
    # warm-up, the pilot (timed and bare), the chunk twice, the consistency check's calls
    assert calls[0] == warmup + 2 * iterations + 2 * iterations + iterations
    assert timing.median < 30, timing


def test_graph_mode_times_replays_and_names_what_cannot_be_captured():
    x = torch.randn(1 << 20, device="cuda")
    timing = time_calls(lambda _: x.mul_(1.0), warmup=3, iterations=20, graph=True)
    assert timing.problem == "" and 0 < timing.median < 100 and len(timing.samples_us) == 20
    assert timing.host_us_per_call > 0
    syncs = time_calls(lambda _: x.sum().item(), warmup=3, iterations=20, graph=True)
    assert syncs.problem.startswith("not capturable in a CUDA graph: ")


PEERS_PY = """
import time

import torch
import torch.nn.functional as F

def make_inputs(case):
    x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    return (x, torch.randn(case.shape[-1], dtype=case.dtype, device=case.device), 1e-6)

def ours(ops, x, w, eps):  # ops is torch.ops.aten: the job names no project library
    return ops.rms_norm(x, [x.shape[-1]], w, eps)

def reference(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

def compiled():
    return torch.compile(lambda x, w, eps: F.rms_norm(x, (x.shape[-1],), w, eps), dynamic=False)

def host_heavy():
    def call(x, w, eps):
        end = time.perf_counter() + 200e-6
        while time.perf_counter() < end:
            pass
        return F.rms_norm(x, (x.shape[-1],), w, eps)
    return call

def not_installed():
    import liger_kernel_not_installed  # noqa: F401

BENCHMARKS = {"rms_norm": {"inputs": make_inputs, "ours": ours, "reference": reference,
                           "peers": {"torch.compile": compiled, "host_heavy": host_heavy,
                                     "liger": not_installed, "wrong": lambda: lambda x, w, e: x}}}
"""


def run_job(tmp_path, graph, shapes):
    (tmp_path / "peers.py").write_text(textwrap.dedent(PEERS_PY))
    cases = [{"benchmark": "rms_norm", "case": f"{r}x{h} bf16", "shape": [r, h], "dtype": "bf16",
              "bytes": 2.0 * (2 * r * h + h), "atol": 1e-2, "rtol": 1.6e-2,
              "correctness_only": False} for r, h in shapes]
    cases.append(dict(cases[0], benchmark="rms_norm_strided"))
    job = {"schema": "kbuild-peer-job/1", "peers_file": str(tmp_path / "peers.py"),
           "project_library": "", "namespace": "", "graph": graph, "warmup": 3,
           "iterations": 20, "peak_gbps": 4273.0, "cases": cases}
    (tmp_path / "job.json").write_text(json.dumps(job))
    result = subprocess.run([sys.executable, str(HERE / "peer_worker.py"), "--job",
                             str(tmp_path / "job.json"), "--out", str(tmp_path / "out.json")],
                            capture_output=True, text=True, timeout=540, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"peers: rms_norm/{shapes[0][0]}x{shapes[0][1]} bf16: torch.compile" in result.stderr
    return json.loads((tmp_path / "out.json").read_text())


def check_document(out, mode, shapes):
    assert (out["schema"], out["mode"]) == ("kbuild-peer-results/1", mode)
    assert out["device"] and out["torch"] == torch.__version__
    assert {p["name"]: p["available"] for p in out["peers"]} == {
        "torch.compile": True, "host_heavy": True, "liger": False, "wrong": True}
    assert "liger_kernel_not_installed" in out["peers"][2]["reason"]
    assert out["problems"] == ["peers.py has no entry for benchmark 'rms_norm_strided': "
                               "its cases have no peers"]
    assert [r["case"] for r in out["records"]] == [f"{r}x{h} bf16" for r, h in shapes]
    for record in out["records"]:
        ours = record["ours"]
        assert ours["problem"] == "" and ours["time_us"]["median"] > 0
        peers = {p["name"]: p for p in record["peers"]}
        assert set(peers) == {"torch.compile", "host_heavy", "wrong"}
        for name in ("torch.compile", "host_heavy"):
            peer = peers[name]
            assert peer["problem"] == "", peer
            assert peer["speedup"] == pytest.approx(
                peer["time_us"]["median"] / ours["time_us"]["median"])
            assert 0 < peer["gbps"] < 4273 * 1.05 and peer["max_abs_error"] < 0.1
        assert peers["host_heavy"]["host_us_per_call"] >= 200
        assert peers["wrong"]["problem"].startswith("incorrect (mismatch)")
    return {r["case"]: r for r in out["records"]}


def test_the_worker_end_to_end_eager(tmp_path):
    shapes = [(1024, 4096), (4096, 2048)]
    records = check_document(run_job(tmp_path, False, shapes), "events+l2flush", shapes)
    heavy = {p["name"]: p for p in records["1024x4096 bf16"]["peers"]}["host_heavy"]
    assert heavy["time_us"]["median"] < 100  # its 200 us of host time per call is not counted


def test_the_worker_end_to_end_in_graph_mode(tmp_path):
    shapes = [(1024, 4096)]
    check_document(run_job(tmp_path, True, shapes), "graph+rotate", shapes)
