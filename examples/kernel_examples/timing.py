"""End-to-end timing of a model step: CUDA events on the current stream
around each call, after warm-up, median of the timed calls. Unlike a kernel
benchmark this includes the host's work (Python, dispatch, launches): an
end-to-end user pays it. Every column of a table is timed the same way.

A step bound by the host takes as long as the host does, and the host's
speed drifts: on the H200 machine the same compiled 1x512 Qwen3 prefill took
14.9 ms in one run and 26.9 ms in another, far more than any kernel changes.
time_interleaved therefore times the columns of a case in rounds, one call
of each per round, so a slow spell lands on every column alike."""

import statistics
import time
from typing import Callable, Dict, List

import torch


def time_step(fn: Callable[[], object], warmup: int = 3, iters: int = 10) -> Dict[str, float]:
    """Median, min and max milliseconds of fn() over `iters` calls, and the
    median host milliseconds until fn() returned (host_ms: close to the
    median when the host bounds the call, below it when the GPU does)."""
    return time_interleaved({"step": fn}, warmup, iters)["step"]


def time_interleaved(steps: Dict[str, Callable[[], object]], warmup: int = 3,
                     iters: int = 10) -> Dict[str, Dict[str, float]]:
    """time_step's numbers for each of `steps`, timed in `iters` rounds of one
    call each (after `warmup` untimed rounds); the order rotates from round
    to round, so no step is always the one after a given other."""
    names = list(steps)
    for _ in range(warmup):
        for name in names:
            steps[name]()
    torch.cuda.synchronize()
    times: Dict[str, List[float]] = {name: [] for name in names}
    host: Dict[str, List[float]] = {name: [] for name in names}
    for round_ in range(iters):
        for i in range(len(names)):
            name = names[(round_ + i) % len(names)]
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            began = time.perf_counter()
            steps[name]()
            host[name].append((time.perf_counter() - began) * 1000.0)
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end))
    return {name: {"median_ms": statistics.median(times[name]), "min_ms": min(times[name]),
                   "max_ms": max(times[name]), "host_ms": statistics.median(host[name])}
            for name in names}
