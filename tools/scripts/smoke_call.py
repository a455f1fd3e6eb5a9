#!/usr/bin/env python3
"""Loads a built template project's Kernel Hub variant in this Python and calls its op on the GPU.

Usage: smoke_call.py TEMPLATE PROJECT_DIR

Imports build/<variant>/__init__.py the way the `kernels` loader does (importlib, package name from
metadata.json), calls the template's public function on random CUDA tensors (odd sizes included) and
compares with a float64 torch reference. Also runs the op under torch.compile once (fake impls).
Exit 0 when every check passes. This is a smoke test; the full checks are `kbuild test`.
"""
import importlib.util
import json
import sys
from pathlib import Path

import torch


def load_variant(project: Path):
    variants = [d for d in (project / "build").iterdir() if (d / "metadata.json").is_file()]
    if len(variants) != 1:
        sys.exit(f"expected one variant dir under {project}/build, found {[v.name for v in variants]}")
    variant = variants[0]
    meta = json.loads((variant / "metadata.json").read_text())
    spec = importlib.util.spec_from_file_location(
        meta["id"], variant / "__init__.py", submodule_search_locations=[str(variant)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[meta["id"]] = module
    spec.loader.exec_module(module)
    print(f"loaded {variant.name} as {meta['id']}")
    return module


def rms_ref(x, w, eps):
    x64 = x.double()
    y = x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps)
    return y * w.double() if w is not None else y


def check(name, got, ref, dtype):
    tol = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}[dtype]
    rel = ((got.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    ok = torch.isfinite(got).all().item() and rel <= tol
    print(f"  {name:40s} rel_l2={rel:.2e} tol={tol:.1e} {'ok' if ok else 'FAIL'}")
    return ok


def smoke_blank(m):
    ok = True
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for n in (1, 7, 4096 + 3):
            x, y = (torch.randn(n, device="cuda", dtype=dtype) for _ in range(2))
            ok &= check(f"scale_add {dtype} n={n}", m.scale_add(x, y, 0.5), x.double() * 0.5 + y.double(), dtype)
    return ok


def smoke_rmsnorm(m):
    ok = True
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for rows, hidden in ((1, 4096), (7, 2047), (33, 5120), (128, 128)):
            x = torch.randn(rows, hidden, device="cuda", dtype=dtype)
            w = torch.randn(hidden, device="cuda", dtype=dtype)
            ok &= check(f"rms_norm {dtype} {rows}x{hidden}", m.rms_norm(x, w, 1e-6), rms_ref(x, w, 1e-6), dtype)
    x = torch.randn(4, 1000, device="cuda", dtype=torch.bfloat16)
    ok &= check("rms_norm under torch.compile", torch.compile(m.rms_norm)(x, None, 1e-6), rms_ref(x, None, 1e-6), torch.bfloat16)
    return ok


def smoke_fused_add_rmsnorm(m):
    ok = True
    for dtype in (torch.float32, torch.bfloat16):
        for rows, hidden in ((1, 4096), (9, 2047)):
            x = torch.randn(rows, hidden, device="cuda", dtype=dtype)
            r = torch.randn(rows, hidden, device="cuda", dtype=dtype)
            w = torch.randn(hidden, device="cuda", dtype=dtype)
            s = x.double() + r.double()
            m.fused_add_rms_norm(x, r, w, 1e-6)
            ok &= check(f"fused_add residual {dtype} {rows}x{hidden}", r, s, dtype)
            ok &= check(f"fused_add output {dtype} {rows}x{hidden}", x, rms_ref(s.to(dtype), w, 1e-6), dtype)
    return ok


def smoke_head_rmsnorm(m):
    ok = True
    for dtype in (torch.float32, torch.bfloat16):
        for tokens, heads, d in ((1, 8, 128), (37, 24, 128), (5, 3, 64)):
            x = torch.randn(tokens, heads, d, device="cuda", dtype=dtype)
            w = torch.randn(d, device="cuda", dtype=dtype)
            ok &= check(f"head_rms_norm {dtype} {tokens}x{heads}x{d}", m.head_rms_norm(x, w, 1e-6), rms_ref(x, w, 1e-6), dtype)
    return ok


# Calls the op must refuse with a RuntimeError (never a crash): each runs in its own process,
# so a crash in one error path is reported and the others still run.
REJECTIONS = {
    "rmsnorm": {
        "unsupported dtype": "m.rms_norm(torch.randn(4, 64, device='cuda', dtype=torch.float64), None, 1e-6)",
        "strided last dim": "m.rms_norm(torch.randn(4, 128, device='cuda')[:, ::2], None, 1e-6)",
        "weight of wrong shape": "m.rms_norm(torch.randn(4, 64, device='cuda'), torch.randn(63, device='cuda'), 1e-6)",
        "unevenly spaced rows": "m.rms_norm(torch.randn(4, 1536, device='cuda')[:, :1024].view(4, 8, 128), None, 1e-6)",
    },
}


def run_rejection(project: Path, code: str) -> None:
    m = load_variant(project)
    try:
        eval(code, {"m": m, "torch": torch})
        torch.cuda.synchronize()
    except RuntimeError as e:
        print("rejected:", str(e).splitlines()[0][:200])
        sys.exit(0)
    print("accepted (expected a RuntimeError)")
    sys.exit(1)


def check_rejections(template: str, project: Path) -> bool:
    import subprocess
    ok = True
    for name, code in REJECTIONS.get(template, {}).items():
        r = subprocess.run([sys.executable, __file__, "--reject", template, str(project), code],
                           capture_output=True, text=True, timeout=120)
        last = (r.stdout.strip().splitlines() or [""])[-1]
        verdict = "ok" if r.returncode == 0 else f"FAIL (exit {r.returncode})"
        print(f"  rejects {name:30s} {verdict}: {last[:150]}")
        ok &= r.returncode == 0
    return ok


SMOKES = {"blank": smoke_blank, "rmsnorm": smoke_rmsnorm,
          "fused_add_rmsnorm": smoke_fused_add_rmsnorm, "head_rmsnorm": smoke_head_rmsnorm}


def main():
    if sys.argv[1] == "--reject":
        run_rejection(Path(sys.argv[3]), sys.argv[4])
    template, project = sys.argv[1], Path(sys.argv[2])
    if template not in SMOKES:
        sys.exit(f"no smoke check for template '{template}' (known: {', '.join(SMOKES)})")
    torch.manual_seed(0)
    ok = SMOKES[template](load_variant(project))
    torch.cuda.synchronize()
    ok &= check_rejections(template, project)
    print("smoke:", "ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
