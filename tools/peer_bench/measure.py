"""Timing helpers: triton's do_bench (median; flushes L2 before every call),
the device-to-device copy ceiling, and launch cost in and out of CUDA graphs."""

import math
import time

import torch


def bench_us(fn, warmup_ms: int = 10, rep_ms: int = 40) -> float:
    """Median time of fn() in microseconds (L2 flushed before each call)."""
    from triton.testing import do_bench

    return 1000.0 * do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median")


def copy_bandwidth_gbps(gib: float = 1.0) -> float:
    """Large D2D copy; read + write bytes counted (the 100% line)."""
    n = int(gib * (1 << 30))
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    us = bench_us(lambda: dst.copy_(src), warmup_ms=25, rep_ms=200)
    del src, dst
    torch.cuda.empty_cache()
    return 2.0 * n / (us * 1e-6) / 1e9


def graph_replay_us(fn, calls: int = 100, replays: int = 20) -> float:
    """Time per call of fn when `calls` of them are captured in one CUDA graph
    and replayed: launch cost without the CPU dispatch path."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(replays):
        graph.replay()
    end.record()
    end.synchronize()
    return 1000.0 * start.elapsed_time(end) / (replays * calls)


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
