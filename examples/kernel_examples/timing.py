"""End-to-end timing of a model step: CUDA events on the current stream
around each call, after warm-up, median of the timed calls. Unlike a kernel
benchmark this includes the host's work (Python, dispatch, launches): an
end-to-end user pays it. Every column of a table is timed the same way."""

import statistics
import time
from typing import Callable, Dict

import torch


def time_step(fn: Callable[[], object], warmup: int = 3, iters: int = 10) -> Dict[str, float]:
    """Median, min and max milliseconds of fn() over `iters` calls, and the
    median host milliseconds until fn() returned (host_ms: close to the
    median when the host bounds the call, below it when the GPU does)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times, host = [], []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        began = time.perf_counter()
        fn()
        host.append((time.perf_counter() - began) * 1000.0)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times),
            "host_ms": statistics.median(host)}
