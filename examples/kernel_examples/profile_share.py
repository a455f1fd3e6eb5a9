"""Where a model step's GPU time goes, from the torch profiler: GEMMs,
attention, our ops (by their torch.ops namespaces) and everything else (the
elementwise and reduction kernels the swaps replace, and the rest)."""

import re
from typing import Callable, Dict, Iterable

import torch
from torch.profiler import ProfilerActivity, profile

GEMM = re.compile(r"gemm|cutlass|cublas|nvjet|xmma", re.I)
ATTENTION = re.compile(r"flash|fmha|attention", re.I)


def profile_step(fn: Callable[[], object], namespaces: Iterable[str], steps: int = 2
                 ) -> Dict[str, float]:
    """Microseconds of GPU time per step: total, gemm, attention, ours (the
    kernels our ops launched, attributed through the op events of the given
    namespaces) and other; plus each part's share of the total, the
    kernels launched per step (a step whose wall time is far above its GPU
    total is bound by the host's launches, not by the GPU), ours_cpu, the
    host microseconds spent inside our ops' calls, and host_top: the host
    operations with the most self time per step (where a host-bound step's
    time goes)."""
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
    parts = {"total": 0.0, "gemm": 0.0, "attention": 0.0, "kernels": 0}
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        parts["kernels"] += 1
        parts["total"] += event.device_time
        if GEMM.search(event.name):
            parts["gemm"] += event.device_time
        elif ATTENTION.search(event.name):
            parts["attention"] += event.device_time
    prefixes = tuple(ns + "::" for ns in namespaces)
    ours_rows = [row for row in prof.key_averages() if prefixes and row.key.startswith(prefixes)]
    parts["ours"] = sum(row.device_time_total for row in ours_rows)
    parts["ours_cpu"] = sum(row.cpu_time_total for row in ours_rows)
    parts["other"] = parts["total"] - parts["gemm"] - parts["attention"] - parts["ours"]
    out = {k: v / steps for k, v in parts.items()}
    out["host_top"] = host_hot_spots(prof, steps)
    for k in ("gemm", "attention", "ours", "other"):
        out[k + "_share"] = out[k] / out["total"] if out["total"] else 0.0
    return out


HOST_TOP = 12  # host operations listed per profiled step


def host_hot_spots(prof, steps: int):
    """The host operations with the most self CPU time: [name, microseconds
    per step, calls per step], largest first."""
    rows = sorted(prof.key_averages(), key=lambda r: r.self_cpu_time_total, reverse=True)
    return [[row.key, round(row.self_cpu_time_total / steps, 1), row.count / steps]
            for row in rows[:HOST_TOP]]
