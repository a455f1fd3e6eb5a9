"""Timing helpers. GPU times come from the peer worker's timing (tools/harness/python/
peer_timing.py), which follows the C++ harness's rules: events on the current stream, L2 flushed
before each call, the host kept ahead of the GPU, median of the calls. Also: the copy ceiling,
and launch cost in and out of CUDA graphs."""

import math
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness" / "python"))

import peer_timing  # noqa: E402


def _median_us(fn, graph, warmup, iterations):
    timing = peer_timing.time_calls(lambda _set: fn(), 1, warmup, iterations, graph)
    if timing.problem:  # a number that includes host time or misses work is not returned
        raise RuntimeError(timing.problem)
    return timing.median


def bench_us(fn, warmup: int = 10, iterations: int = 100) -> float:
    """Median GPU time of fn() in microseconds, L2 flushed before each call."""
    return _median_us(fn, False, warmup, iterations)


def copy_bandwidth_gbps(gib: float = 1.0) -> float:
    """Large D2D copy; read + write bytes counted (the 100% line)."""
    n = int(gib * (1 << 30))
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    us = bench_us(lambda: dst.copy_(src), warmup=5, iterations=20)
    del src, dst
    torch.cuda.empty_cache()
    return 2.0 * n / (us * 1e-6) / 1e9


def graph_replay_us(fn, calls: int = 100) -> float:
    """Time per call of fn when `calls` of them are captured in one CUDA graph and replayed
    (the harness's graph mode): launch cost without the CPU dispatch path."""
    return _median_us(fn, True, 3, calls)


def eager_loop_us(fn, calls: int = 2000) -> float:
    """Host wall time per call of fn in a tight loop (dispatch + launch)."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return 1e6 * (time.perf_counter() - t0) / calls


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))
