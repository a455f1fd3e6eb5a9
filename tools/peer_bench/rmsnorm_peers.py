#!/usr/bin/env python3
"""Checks and times our RMSNorm ops on the GPU against their peers.

Usage (on the GPU machine, projects built there by `kbuild build`):
  python3 tools/peer_bench/rmsnorm_peers.py /tmp/rmsnorm --json out.json \
      [--fused /tmp/fused_add_rmsnorm] [--head /tmp/head_rmsnorm]

Each path is a project dir, its build/ dir or a variant dir. Peers: F.rms_norm,
torch.compile(composite), the eager composite, Liger-Kernel (Triton) and QuACK
(CuTe DSL) when importable; a peer that fails is recorded with its exact error.
Timing: the peer worker's (tools/harness/python/peer_timing.py): median of CUDA-event
times, L2 flushed before each call, the host kept ahead of the GPU. GB/s counts
x read + y write + weight; % is of a D2D copy measured in the same run.
Prints markdown tables; writes everything to the --json path. Installs nothing.
"""

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import correctness  # noqa: E402
import measure  # noqa: E402
import peers as peer_mod  # noqa: E402
import shapes  # noqa: E402
import variant_loader  # noqa: E402
from report import print_launch, print_perf_table  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
EXPENSIVE = ("torch.compile", "quack")  # compile per shape: skipped past the budget


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rmsnorm", help="rmsnorm project, build/ or variant dir")
    p.add_argument("--json", required=True, help="where to write the results")
    p.add_argument("--fused", help="fused_add_rmsnorm project/build/variant dir")
    p.add_argument("--head", help="head_rmsnorm project/build/variant dir")
    p.add_argument("--dtypes", default="bf16,fp16")
    p.add_argument("--budget-s", type=float, default=200.0,
                   help="after this many seconds, compile-heavy peers are skipped")
    p.add_argument("--eps", type=float, default=1e-6)
    return p.parse_args()


class Timer:
    """Times one implementation, recording failures and budget skips."""

    def __init__(self, deadline):
        self.deadline = deadline

    def time(self, name, make):
        if name in EXPENSIVE and time.monotonic() > self.deadline:
            return {"skipped": "time budget exceeded"}
        try:
            fn = make()
            fn()
            torch.cuda.synchronize()
            return {"us": measure.bench_us(fn)}
        except Exception as e:
            return {"error": peer_mod.describe_exception(e)}


def run_rows(timer, label_set, peers, dtype, rows, hidden, tensors_moved,
             eps, copy_gbps, setup):
    """Times ours and every peer on one shape. `setup(dtype, rows, hidden)`
    returns (ours_fn, peer_args) so in-place ops get their own tensors."""
    ours_fn, peer_args = setup(dtype, rows, hidden)
    w_elem = peer_args[1].element_size()
    total = shapes.norm_bytes(rows, hidden, torch.tensor([], dtype=dtype).element_size(),
                              w_elem, tensors_moved)
    row = {"set": label_set[0], "shape": label_set[1], "dtype": str(dtype)[6:],
           "rows": rows, "hidden": hidden, "bytes": total,
           "floor_us": total / (copy_gbps * 1e9) * 1e6}
    row["ours"] = timer.time("ours", lambda: ours_fn)
    if "us" in row["ours"]:
        gbps = total / (row["ours"]["us"] * 1e-6) / 1e9
        row["ours"].update(gbps=gbps, pct_copy=100.0 * gbps / copy_gbps)
        if gbps > copy_gbps * 1.02:
            row["ours"]["flag"] = "faster than the measured copy bandwidth: suspect"
    row["peers"] = {}
    for name, make in peers.items():
        r = timer.time(name, lambda: make(*peer_args))
        if "us" in r and "us" in row["ours"]:
            r["speedup"] = r["us"] / row["ours"]["us"]
        row["peers"][name] = r
    return row


def main():
    args = parse_args()
    started = time.monotonic()
    timer = Timer(started + args.budget_s)
    dtypes = [DTYPES[d] for d in args.dtypes.split(",")]
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "python": platform.python_version(), "date": time.strftime("%Y-%m-%d"),
              "eps": args.eps}
    try:
        import triton
        result["triton"] = triton.__version__
    except Exception as e:
        result["triton"] = f"unavailable: {e}"

    mods = {"rms_norm": variant_loader.load_variant(args.rmsnorm)}
    if args.fused:
        mods["fused_add_rms_norm"] = variant_loader.load_variant(args.fused)
    if args.head:
        mods["head_rms_norm"] = variant_loader.load_variant(args.head)
    result["variants"] = {k: m.__variant_dir__ for k, m in mods.items()}

    peers, peer_errors = peer_mod.load_peers()
    result["peer_import_errors"] = peer_errors
    for name, err in peer_errors.items():
        print(f"peer {name} not run: {err}")

    # Check before time.
    rms = mods["rms_norm"].rms_norm
    checks = {"rms_norm": correctness.check_rms_norm(rms, dtypes + [torch.float32], args.eps)}
    try:
        compiled = torch.compile(rms, fullgraph=True)
        x = torch.randn(8, 4096, device="cuda", dtype=torch.bfloat16)
        ok = torch.allclose(compiled(x, None, args.eps).float(), rms(x, None, args.eps).float())
        checks["rms_norm"].append({"case": "torch.compile(fullgraph=True)", "ok": ok})
    except Exception as e:
        checks["rms_norm"].append({"case": "torch.compile(fullgraph=True)", "ok": False,
                                   "error": peer_mod.describe_exception(e)})
    if "fused_add_rms_norm" in mods:
        checks["fused_add_rms_norm"] = correctness.check_fused(
            mods["fused_add_rms_norm"].fused_add_rms_norm, dtypes + [torch.float32], args.eps)
    if "head_rms_norm" in mods:
        checks["head_rms_norm"] = correctness.check_head(
            mods["head_rms_norm"].head_rms_norm, dtypes + [torch.float32], args.eps)
    result["correctness"] = checks
    for op, cases in checks.items():
        bad = [c for c in cases if not c["ok"]]
        print(f"{op}: {len(cases) - len(bad)}/{len(cases)} correctness cases pass")
        for c in bad:
            print(f"  FAIL {c['case']}: {c.get('error') or c.get('message') or c}")

    copy_gbps = measure.copy_bandwidth_gbps()
    result["copy_gbps"] = copy_gbps
    print(f"\ncopy bandwidth (D2D, read+write): {copy_gbps:.0f} GB/s")

    result["launch"] = launch_costs(rms, args.eps, peers)
    print_launch(result["launch"])

    eps = args.eps
    perf = result["rms_norm"] = []

    def rms_setup(dtype, rows, hidden):
        x = torch.randn(rows, hidden, device="cuda", dtype=dtype)
        w = torch.randn(hidden, device="cuda", dtype=dtype)
        return (lambda: rms(x, w, eps)), (x, w, eps)

    for s in shapes.RMS_NORM_SHAPES:
        for dtype in dtypes:
            perf.append(run_rows(timer, s, peers, dtype, s[2], s[3], 2, eps,
                                 copy_gbps, rms_setup))
    result["geomean_speedup"] = geomeans(perf)
    print_perf_table("rms_norm", perf, list(peers), result["geomean_speedup"])

    if "fused_add_rms_norm" in mods:
        result["fused_add_rms_norm"] = run_fused(timer, mods["fused_add_rms_norm"],
                                                 dtypes, eps, copy_gbps)
    if "head_rms_norm" in mods:
        result["head_rms_norm"] = run_head(timer, mods["head_rms_norm"], peers,
                                           dtypes, eps, copy_gbps)
    result["wall_s"] = time.monotonic() - started
    Path(args.json).write_text(json.dumps(result, indent=1))
    print(f"\nwrote {args.json} ({result['wall_s']:.0f} s)")
    failed = any(not c["ok"] for cases in checks.values() for c in cases)
    return 1 if failed else 0


# Peers also timed in a CUDA graph at small sizes: it separates each one's
# launch path (host dispatch, a DSL runtime) from its kernel's GPU time.
GRAPH_PEERS = ("F.rms_norm", "quack", "liger")


def launch_costs(rms, eps, peers):
    """Launch-bound regime (1-1024 tokens): a trivial kernel vs our op and the
    peers, in a CUDA graph (GPU-side cost) and eagerly (host dispatch +
    launch). A peer that cannot be captured is reported with its error."""
    out = {}
    tiny = torch.zeros(1, device="cuda")
    cases = {"trivial kernel (add_ on 1 element)": lambda: tiny.add_(1)}
    for tokens in (1, 128, 1024):
        x = torch.randn(tokens, 4096, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
        cases[f"ours {tokens}x4096 bf16"] = (lambda x=x, w=w: rms(x, w, eps))
        for name in GRAPH_PEERS:
            if name in peers:
                try:
                    cases[f"{name} {tokens}x4096 bf16"] = peers[name](x, w, eps)
                except Exception as e:
                    out[f"{name} {tokens}x4096 bf16"] = {
                        "error": peer_mod.describe_exception(e)}
    for name, fn in cases.items():
        try:
            out[name] = {"graph_us": measure.graph_replay_us(fn),
                         "eager_us": measure.eager_loop_us(fn)}
        except Exception as e:
            out[name] = {"error": peer_mod.describe_exception(e)}
    return out


def geomeans(perf):
    """Geometric mean of speedup vs each peer over the Qwen3 + LTX shapes."""
    names = {n for row in perf for n in row["peers"]}
    return {n: measure.geomean([row["peers"][n].get("speedup") for row in perf
                                if row["set"] in shapes.GEOMEAN_SETS])
            for n in sorted(names)}


def run_fused(timer, mod, dtypes, eps, copy_gbps):
    def add_then(norm):
        return lambda x, r, w, e: (lambda: norm(x + r, w, e))

    fused_peers = {
        "F.rms_norm(x+r)": add_then(lambda v, w, e: torch.nn.functional.rms_norm(
            v, (v.shape[-1],), w, e)),
        "eager(x+r)": add_then(peer_mod.eager_composite),
    }

    def setup(dtype, rows, hidden):
        x = torch.randn(rows, hidden, device="cuda", dtype=dtype)
        r = torch.randn(rows, hidden, device="cuda", dtype=dtype)
        w = torch.randn(hidden, device="cuda", dtype=dtype)
        return (lambda: mod.fused_add_rms_norm(x, r, w, eps)), (x.clone(), w, eps, r.clone())

    rows_out = []
    for s in shapes.FUSED_SHAPES:
        for dtype in dtypes:
            ours_fn, (x, w, e, r) = setup(dtype, s[2], s[3])
            peers = {n: (lambda x_, w_, e_, mk=mk, r=r: mk(x_, r, w_, e_))
                     for n, mk in fused_peers.items()}
            rows_out.append(run_rows(timer, s, peers, dtype, s[2], s[3], 4, eps,
                                     copy_gbps, lambda *_: (ours_fn, (x, w, e))))
    print_perf_table("fused_add_rms_norm", rows_out, list(fused_peers), None)
    return rows_out


def run_head(timer, mod, peers, dtypes, eps, copy_gbps):
    rows_out = []
    for tag, label, tokens, heads, head_dim in shapes.HEAD_SHAPES:
        for dtype in dtypes:
            x = torch.randn(tokens, heads, head_dim, device="cuda", dtype=dtype)
            w = torch.randn(head_dim, device="cuda", dtype=dtype)
            x2 = x.view(-1, head_dim)  # peers see rows of head_dim
            rows_out.append(run_rows(
                timer, (tag, label), peers, dtype, tokens * heads, head_dim, 2,
                eps, copy_gbps,
                lambda *_: ((lambda: mod.head_rms_norm(x, w, eps)), (x2, w, eps))))
    print_perf_table("head_rms_norm", rows_out, list(peers), None)
    return rows_out


if __name__ == "__main__":
    sys.exit(main())
