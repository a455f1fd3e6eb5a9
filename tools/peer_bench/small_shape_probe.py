#!/usr/bin/env python3
"""Kernel-only durations of ours and the peers at 1-1024 tokens, under ncu.

Event timing (measure.bench_us) counts everything between the CUDA event
before a call and the one after it, launch gaps between a call's kernels
included; ncu times the kernel alone with cold caches (its default
--cache-control all). Comparing both tells whether a peer that wins at small
shapes has a faster kernel or a faster launch.

Usage (GPU machine, our rmsnorm project built there):
  ncu --profile-from-start off --clock-control none --csv \
      --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,\
launch__registers_per_thread python3 tools/peer_bench/small_shape_probe.py /tmp/rmsnorm \
      [ROWSxHIDDEN ...]
(bf16; the default shapes are 1, 128 and 1024 rows of 4096 and 1024 of 2048.)

Every implementation runs and is warmed up outside the profiled range, then
once per shape inside it; the order is printed so the CSV rows can be read.
torch.compile's generated Triton kernel (the launch config it chose) is printed
for the first shape.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import peers as peer_mod  # noqa: E402
import variant_loader  # noqa: E402

SHAPES = ((1, 4096), (128, 4096), (1024, 4096), (1024, 2048))
SKIPPED = ("eager",)  # several kernels per call: not comparable here


def print_compiled_kernel(x, w, eps):
    from torch._inductor.utils import run_and_get_code

    fn = torch.compile(peer_mod.eager_composite, dynamic=False)
    _, sources = run_and_get_code(fn, x, w, eps)
    for source in sources:
        for line in source.splitlines():
            if any(k in line for k in ("@triton", "triton_meta", "num_warps", "BLOCK", "def triton")):
                print("  inductor:", line.strip()[:200])


def parse_shape(text):
    rows, hidden = text.lower().split("x")
    return int(rows), int(hidden)


def main():
    ours = variant_loader.load_variant(sys.argv[1])
    shapes = tuple(parse_shape(a) for a in sys.argv[2:]) or SHAPES
    peers, errors = peer_mod.load_peers()
    for name, why in errors.items():
        print(f"peer {name} not run: {why}")
    eps = 1e-6
    calls = []  # (label, fn) in profiled order
    for rows, hidden in shapes:
        x = torch.randn(rows, hidden, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(hidden, device="cuda", dtype=torch.bfloat16)
        if (rows, hidden) == shapes[0]:
            print_compiled_kernel(x, w, eps)
        calls.append((f"ours {rows}x{hidden}", lambda x=x, w=w: ours.rms_norm(x, w, eps)))
        for name, make in peers.items():
            if name not in SKIPPED:
                calls.append((f"{name} {rows}x{hidden}", make(x, w, eps)))
    for _, fn in calls:  # compile and warm up outside the profiled range
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for label, fn in calls:
        print("profiled:", label, flush=True)
        fn()
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
