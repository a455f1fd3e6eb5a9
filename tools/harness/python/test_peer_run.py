"""CPU tests of the peer worker's case loop and its OUT numbers, with a fake timer standing in
for the GPU (run: pytest tools/harness/python)."""

import json
import os
import re
import sys
import textwrap
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_job import parse_job  # noqa: E402
from peer_results import (Result, gbps, impossible_problem, make_result, speedup,  # noqa: E402
                          write_document)
import peer_results  # noqa: E402
import peer_timing  # noqa: E402
from peer_run import run_cases  # noqa: E402
from peer_timing import (Timing, host_fell_behind, input_set_count, percentile,  # noqa: E402
                         summarize)
from peers_file import load_peers_file  # noqa: E402

OPS = torch.ops.aten
PEERS_PY = """
import torch

FACTORY_CALLS = {}

def make_inputs(case):
    x = torch.randn(case.shape, dtype=case.dtype, device=case.device)
    return (x, torch.randn(case.shape[-1], dtype=case.dtype, device=case.device), 1e-6)

def reference(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

def ours(ops, x, w, eps):  # ops: torch.ops.aten here, as for a job with no project library
    return ops.rms_norm(x, [x.shape[-1]], w, eps)

def counted(name, fn):
    def factory():
        FACTORY_CALLS[name] = FACTORY_CALLS.get(name, 0) + 1
        return fn
    return factory

def not_installed():
    FACTORY_CALLS["liger"] = FACTORY_CALLS.get("liger", 0) + 1
    from liger_kernel_not_here import LigerRMSNorm  # noqa: F401

def nan_after_first_row(x, w, eps):
    y = reference(x, w, eps).to(x.dtype)
    y[1:] = float("nan")
    return y

BENCHMARKS = {
    "rms_norm": {"inputs": make_inputs, "ours": ours, "reference": reference, "peers": {
        "eager": counted("eager", lambda x, w, eps: reference(x.float(), w.float(), eps).to(x.dtype)),
        "liger": not_installed,
        "wrong": counted("wrong", lambda x, w, eps: x * 2),
        "nan": counted("nan", nan_after_first_row),
    }},
    "other": {"inputs": make_inputs, "ours": ours, "reference": reference, "peers": {
        "liger": counted("liger-other", lambda x, w, eps: reference(x, w, eps)),
    }},
}
"""


def case(name, benchmark="rms_norm", shape=(4, 64), **change):
    c = {"benchmark": benchmark, "case": name, "shape": list(shape), "dtype": "fp32",
         "bytes": 2e6, "atol": 1e-4, "rtol": 1e-4, "correctness_only": False}
    c.update(change)
    return c


def job(cases, peak_gbps=0.0, graph=False, dram_gbps=None):
    doc = {"schema": "kbuild-peer-job/1", "peers_file": "peers.py", "project_library": "",
           "namespace": "", "graph": graph, "warmup": 2, "iterations": 3,
           "peak_gbps": peak_gbps, "cases": cases}
    if dram_gbps is not None:
        doc["dram_gbps"] = dram_gbps
    return parse_job(doc)


class FakeTimer:
    """Calls the callable once per input set (so errors surface) and returns the next median."""

    def __init__(self, medians):
        self.medians, self.calls = list(medians), []

    def __call__(self, call, input_sets, warmup, iterations, graph, cap_long_calls):
        self.calls.append((input_sets, warmup, iterations, graph))
        for i in range(input_sets):
            call(i)
        return summarize([self.medians.pop(0)], host_us_per_call=7.0)


@pytest.fixture
def entries(tmp_path):
    path = tmp_path / "peers.py"
    path.write_text(textwrap.dedent(PEERS_PY))
    return load_peers_file(str(path))


def factory_calls(entries):
    """The FACTORY_CALLS dict of the peers.py module the entries were loaded from."""
    return entries["rms_norm"].inputs.__globals__["FACTORY_CALLS"]


def test_ours_and_each_peer_are_checked_then_timed(entries):
    timer, lines = FakeTimer([10.0, 12.0, 10.0]), []
    out = run_cases(job([case("4x64 fp32")]), entries, OPS, timer, device="cpu",
                    log=lines.append)
    (record,) = out["records"]
    assert record["ours"] == {"time_us": {"median": 10.0, "p10": 10.0, "p90": 10.0},
                              "host_us_per_call": 7.0, "problem": ""}
    eager, wrong, nan = record["peers"]
    assert (eager["name"], eager["speedup"], eager["problem"]) == ("eager", 1.2, "")
    assert eager["gbps"] == pytest.approx(2e6 / 12e-6 / 1e9)
    assert 0 < eager["max_abs_error"] < 1e-5
    assert wrong["problem"].startswith("incorrect (mismatch): ") and wrong["speedup"] == 0
    assert wrong["time_us"]["median"] == 0  # an incorrect peer is not timed
    assert nan["problem"].startswith("incorrect (nonfinite): 192 of 256 elements")
    assert len(timer.calls) == 3 and timer.calls[0] == (1, 2, 3, False)
    assert lines == ["peers: rms_norm/4x64 fp32: ours", "peers: rms_norm/4x64 fp32: eager",
                     "peers: rms_norm/4x64 fp32: liger",
                     "peers: rms_norm/4x64 fp32: liger: not available: ModuleNotFoundError: "
                     "No module named 'liger_kernel_not_here'",
                     "peers: rms_norm/4x64 fp32: wrong", "peers: rms_norm/4x64 fp32: nan",
                     "peers: rms_norm/4x64 fp32: ours again"]


def test_an_unavailable_peer_is_reported_with_its_reason_and_not_retried(entries):
    out = run_cases(job([case("a"), case("b")]), entries, OPS, FakeTimer([10.0, 12.0, 10.0] * 2),
                    device="cpu", log=lambda _: None)
    assert out["peers"][1] == {"name": "liger", "available": False, "reason":
                               "ModuleNotFoundError: No module named 'liger_kernel_not_here'"}
    assert [p["available"] for p in out["peers"]] == [True, False, True, True]
    calls = factory_calls(entries)
    assert calls["liger"] == 1  # not retried for the second case
    assert calls["eager"] == 2 and calls["wrong"] == 2  # once per case
    assert out["problems"] == []


def test_a_peer_available_for_one_benchmark_only_is_a_problem_for_the_other(entries):
    out = run_cases(job([case("a"), case("b", benchmark="other")]), entries, OPS,
                    FakeTimer([10.0, 12.0, 10.0, 10.0, 11.0, 10.0]), device="cpu",
                    log=lambda _: None)
    liger = next(p for p in out["peers"] if p["name"] == "liger")
    assert liger == {"name": "liger", "available": True, "reason": ""}
    assert out["problems"] == ["peer 'liger' is not available for benchmark 'rms_norm': "
                               "ModuleNotFoundError: No module named 'liger_kernel_not_here'"]


def test_ours_is_timed_again_after_the_peers_and_both_runs_are_pooled(entries):
    timer = FakeTimer([10.0, 12.0, 14.0])  # ours, the one timed peer, ours again
    out = run_cases(job([case("a")]), entries, OPS, timer, device="cpu", log=lambda _: None)
    record = out["records"][0]
    assert record["ours"]["time_us"]["median"] == 12.0  # median of 10 and 14
    assert record["peers"][0]["speedup"] == 1.0


def test_cases_without_an_entry_are_left_out_with_one_problem(entries):
    out = run_cases(job([case("a", benchmark="missing"), case("b", benchmark="missing")]),
                    entries, OPS, FakeTimer([]), device="cpu", log=lambda _: None)
    assert out["records"] == []
    assert out["problems"] == ["peers.py has no entry for benchmark 'missing': "
                               "its cases have no peers"]


def test_a_peer_raising_while_timed_fails_that_case_only(entries):
    def timer(call, input_sets, warmup, iterations, graph, cap_long_calls):
        seen.append(1)  # ours, the first peer (raises), ours again
        return Timing(problem="raised: RuntimeError: boom") if len(seen) == 2 else \
            summarize([10.0])

    seen = []
    out = run_cases(job([case("a")]), entries, OPS, timer, device="cpu", log=lambda _: None)
    eager = out["records"][0]["peers"][0]
    assert out["records"][0]["ours"]["problem"] == ""
    assert (eager["problem"], eager["speedup"]) == ("raised: RuntimeError: boom", 0.0)


def test_an_incorrect_op_is_not_timed_and_no_speedup_is_given(entries):
    entries["rms_norm"] = entries["rms_norm"].__class__(
        entries["rms_norm"].inputs, lambda ops, x, w, eps: x, entries["rms_norm"].reference,
        entries["rms_norm"].peers)
    timer = FakeTimer([12.0, 12.0])
    out = run_cases(job([case("a")]), entries, OPS, timer, device="cpu", log=lambda _: None)
    record = out["records"][0]
    assert record["ours"]["problem"].startswith("incorrect (mismatch)")
    assert record["peers"][0]["problem"] == "" and record["peers"][0]["speedup"] == 0
    assert len(timer.calls) == 1


def test_correctness_only_cases_are_checked_not_timed(entries):
    timer = FakeTimer([])
    out = run_cases(job([case("a", correctness_only=True)]), entries, OPS, timer,
                    device="cpu", log=lambda _: None)
    assert timer.calls == []
    assert [p["problem"][:20] for p in out["records"][0]["peers"]] == [
        "", "incorrect (mismatch)", "incorrect (nonfinite"]


def test_graph_mode_rotates_over_enough_input_sets(entries):
    timer = FakeTimer([10.0, 12.0, 10.0])
    run_cases(job([case("a", bytes=1e6)], graph=True), entries, OPS, timer, l2_bytes=10e6,
              device="cpu", log=lambda _: None)
    assert timer.calls[0] == (21, 2, 3, True)


def test_impossible_speed_is_flagged(entries):
    out = run_cases(job([case("a", bytes=50e6)], peak_gbps=4273.0), entries, OPS,
                    FakeTimer([10.0, 12.0, 10.0]), device="cpu", log=lambda _: None)
    record = out["records"][0]
    assert record["ours"]["problem"] == "impossible: 5000 GB/s is above the copy bandwidth 4273 GB/s"
    assert record["peers"][0]["problem"] == ""  # 4167 GB/s is within 2% of the peak
    assert record["peers"][0]["speedup"] == 0  # ours has a problem


def test_a_read_mostly_peer_may_pass_the_copy_but_not_the_drams_theoretical_rate(entries):
    # physics.cpp's rule: the H200 ran a cross-entropy over fp32 logits at 106% of the copy.
    out = run_cases(job([case("a", bytes=46e6)], peak_gbps=4273.0, dram_gbps=4814.0), entries,
                    OPS, FakeTimer([10.0, 12.0, 10.0]), device="cpu", log=lambda _: None)
    assert out["records"][0]["ours"]["problem"] == ""  # 4600 GB/s: 108% of the copy
    out = run_cases(job([case("a", bytes=60e6)], peak_gbps=4273.0, dram_gbps=4814.0), entries,
                    OPS, FakeTimer([10.0, 12.0, 10.0]), device="cpu", log=lambda _: None)
    assert out["records"][0]["ours"]["problem"] == (
        "impossible: 6000 GB/s is above the copy bandwidth 4273 GB/s and the DRAM's theoretical "
        "4814 GB/s")
    assert impossible_problem(5100, 0, 4814) == \
        "impossible: 5100 GB/s is above the DRAM's theoretical 4814 GB/s"


def test_speed_and_physics_helpers():
    assert gbps(4e6, 2.0) == pytest.approx(2000.0) and gbps(0, 2.0) == 0 and gbps(1, 0) == 0
    assert impossible_problem(4486, 4273) == "" and impossible_problem(4487, 4273) != ""
    assert impossible_problem(1e9, 0) == ""  # unknown peak: no check
    ours, peer = make_result("", 0, summarize([2.0]), 0, 0), make_result("", 0, summarize([3.0]), 0, 0)
    assert speedup(peer, ours) == 1.5
    assert speedup(Result(), ours) == 0 and speedup(peer, Result()) == 0


def harness_constant(relative_path, name):
    """The value of `constexpr ... name = value;` in a C++ harness file."""
    text = (Path(__file__).resolve().parent.parent / relative_path).read_text()
    match = re.search(rf"constexpr \w+ {name} = ([0-9.']+);", text)
    assert match, f"{name} not found in {relative_path}"
    return float(match.group(1).replace("'", ""))


@pytest.mark.parametrize("relative_path, name, ours", [
    ("include/kbuild/harness/host_ahead.h", "kLeadFactor", peer_timing.SPIN_MARGIN),
    ("include/kbuild/harness/host_ahead.h", "kLeadAllowanceUs", peer_timing.SPIN_SLACK_US),
    ("include/kbuild/harness/host_ahead.h", "kMaxLeadUs", peer_timing.SPIN_CAP_US),
    ("include/kbuild/harness/host_ahead.h", "kPilotSpinUsPerCall",
     peer_timing.PILOT_SPIN_US_PER_CALL),
    ("include/kbuild/harness/host_ahead.h", "kIterationsPerSpin", peer_timing.ITERATIONS_PER_SPIN),
    ("include/kbuild/harness/host_ahead.h", "kChunkAttempts", peer_timing.CHUNK_ATTEMPTS),
    ("include/kbuild/harness/timing.h", "kHostOverEventLimit", peer_timing.HOST_OVER_EVENT_LIMIT),
    ("include/kbuild/harness/timing.h", "kHostAllowanceUs", peer_timing.HOST_ALLOWANCE_US),
    ("src/timing.cpp", "kGraphReplays", peer_timing.GRAPH_REPLAYS),
    ("src/benchmark.cpp", "kMaxInputSets", peer_timing.MAX_INPUT_SETS),
    ("include/kbuild/harness/physics.h", "kImpossibleSlack", peer_results.IMPOSSIBLE_SLACK),
])
def test_timing_constants_are_the_harness_ones(relative_path, name, ours):
    assert ours == harness_constant(relative_path, name)


def test_timing_statistics_match_the_harness():
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], 0.1) == 2.0
    t = summarize([5.0, 1.0, 3.0])
    assert (t.median, t.p10, t.p90) == (3.0, pytest.approx(1.4), pytest.approx(4.6))
    assert input_set_count(0, 60e6) == 1
    assert input_set_count(33.5e6, 60e6) == 5
    assert input_set_count(1024, 60e6) == 64


def test_write_document_is_atomic_and_replaces_a_planted_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    out = tmp_path / "out.json"
    os.symlink(victim, out)
    write_document(str(out), {"schema": "kbuild-peer-results/1", "x": "caf\udce9"})
    assert victim.read_text() == "keep" and not out.is_symlink()
    assert json.loads(out.read_text())["x"] == "caf?"
    with pytest.raises(ValueError):
        write_document(str(out), {"x": float("nan")})
    assert json.loads(out.read_text())["x"] == "caf?"  # the old document is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "victim.txt"]


def test_a_busy_gpu_keeps_a_host_ahead_that_enqueues_past_the_spin():
    # H200, 2026-12-01: 32 calls at 28 us of host time each behind an 846 us spin; the GPU,
    # busy with each call's flush and kernel (175 us), reached every call after it was enqueued.
    enqueued = [28.3 * (i + 1) for i in range(32)]
    reached = [846.3 + 175.0 * i for i in range(32)]
    assert host_fell_behind(enqueued, reached, 846.3) == ""
    assert host_fell_behind([10, 20], [10, 20], 50) == ""
    assert host_fell_behind([], [], 50) == ""


def test_a_retried_chunk_spins_twice_as_long_each_attempt_up_to_the_cap():
    assert [peer_timing.retry_lead_us(846.3, k) for k in range(3)] == [846.3, 1692.6, 3385.2]
    assert peer_timing.retry_lead_us(300_000.0, 1) == peer_timing.SPIN_CAP_US


def test_long_calls_are_timed_fewer_times_as_host_ahead_h_cuts_them():
    # The same cases as host_ahead_test.cpp's LongCallsAreTimedFewerTimesWithinTheBudget.
    cut = peer_timing.iterations_within_budget
    assert (cut(100, 40), cut(100, 10_000), cut(100, 23_390)) == (100, 100, 42)
    assert cut(100, 500_000) == peer_timing.MIN_CAPPED_ITERATIONS
    assert (cut(5, 500_000), cut(100, 0)) == (5, 100)


def test_a_call_enqueued_after_the_gpu_reached_it_is_refused():
    problem = host_fell_behind([10, 260.5, 300], [50, 250.25, 400], 50)
    assert problem.startswith("the host fell behind the GPU: timed call 2 of 3 was enqueued "
                              "260.5 us after the chunk's 50.0 us spin began, but the GPU "
                              "reached its start event at 250.2 us"), problem


def test_a_call_that_waits_for_the_gpu_is_named_as_such():
    # Liger's cross entropy on the H200 (2026-12-02): the first call of a chunk returned 1.2 ms
    # after a 124.9 ms spin had run, though the pilot had measured 435 us of host time per call.
    problem = host_fell_behind([126095.0, 126600.0], [125229.4, 125500.0], 124935.4)
    assert problem.endswith("so it waits for the GPU (a .item(), .cpu() or synchronize inside "
                            "it) and its GPU time cannot be told apart from that wait"), problem
    slow = host_fell_behind([10, 260.5, 300], [50, 250.25, 400], 50)
    assert "waits for the GPU" not in slow  # a late call after the first: a slow host


def test_an_exception_text_loses_its_terminal_colours():
    from peer_text import describe_exception
    # As the CuTe DSL raised it on the H200 (2026-12-01).
    error = RuntimeError(" \x1b[91m \x1b[1merror[INTERNAL]: \x1b[0m The compiler could not build "
                         "valid IR for this code.\nmore")
    assert describe_exception(error) == ("RuntimeError: error[INTERNAL]:  The compiler could not "
                                         "build valid IR for this code.")
