"""Where a model step's GPU time goes, from the torch profiler: GEMMs,
attention, our ops (by their torch.ops namespaces) and everything else (the
elementwise and reduction kernels the swaps replace, and the rest)."""

import re
from typing import Callable, Dict, Iterable, List

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
    host microseconds spent inside our ops' calls, host_top: the host
    operations with the most self time per step (where a host-bound step's
    time goes), and kernels_by_name: [name, launches per step, GPU
    microseconds per step] of every kernel, most launched first (what one
    column launches that another does not)."""
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
    parts = {"total": 0.0, "gemm": 0.0, "attention": 0.0, "kernels": 0}
    by_name: Dict[str, List[float]] = {}
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        parts["kernels"] += 1
        calls_and_time = by_name.setdefault(event.name, [0, 0.0])
        calls_and_time[0] += 1
        calls_and_time[1] += event.device_time
        parts["total"] += event.device_time
        if GEMM.search(event.name):
            parts["gemm"] += event.device_time
        elif ATTENTION.search(event.name):
            parts["attention"] += event.device_time
    parts["ours"], parts["ours_cpu"] = ours_times(prof, tuple(ns + "::" for ns in namespaces))
    parts["other"] = parts["total"] - parts["gemm"] - parts["attention"] - parts["ours"]
    out = {k: v / steps for k, v in parts.items()}
    out["host_top"] = host_hot_spots(prof, steps)
    out["kernels_by_name"] = sorted(
        ([name, calls / steps, round(us / steps, 1)] for name, (calls, us) in by_name.items()),
        key=lambda row: (-row[1], -row[2]))
    for k in ("gemm", "attention", "ours", "other"):
        out[k + "_share"] = out[k] / out["total"] if out["total"] else 0.0
    return out


def ours_times(prof, prefixes):
    """GPU and host microseconds of our ops' calls: each outermost call of
    ours counted once with what it contains (an op of ours called inside
    another, as a Python custom op calling its C++ op, is already in its
    caller's totals; summing the op rows would count it twice)."""
    gpu = cpu = 0.0
    if not prefixes:
        return gpu, cpu
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CPU or \
                not event.name.startswith(prefixes):
            continue
        parent = event.cpu_parent
        while parent is not None and not parent.name.startswith(prefixes):
            parent = parent.cpu_parent
        if parent is None:
            gpu += event.device_time_total
            cpu += event.cpu_time_total
    return gpu, cpu


HOST_TOP = 12  # host operations listed per profiled step


def host_hot_spots(prof, steps: int):
    """The host operations with the most self CPU time: [name, microseconds
    per step, calls per step], largest first."""
    rows = sorted(prof.key_averages(), key=lambda r: r.self_cpu_time_total, reverse=True)
    return [[row.key, round(row.self_cpu_time_total / steps, 1), row.count / steps]
            for row in rows[:HOST_TOP]]


def launch_differences(profile_a: Dict, profile_b: Dict, top: int = 15):
    """The kernels launched a different number of times per step in two
    profile_step results: [name, launches in a, launches in b], the largest
    differences first."""
    a = {name: calls for name, calls, _ in profile_a["kernels_by_name"]}
    b = {name: calls for name, calls, _ in profile_b["kernels_by_name"]}
    rows = [[name, a.get(name, 0.0), b.get(name, 0.0)] for name in a.keys() | b.keys()
            if a.get(name, 0.0) != b.get(name, 0.0)]
    rows.sort(key=lambda row: (-abs(row[1] - row[2]), row[0]))
    return rows[:top]
