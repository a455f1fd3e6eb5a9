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


DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def smoke_softmax(m):
    ok = True
    for dtype in DTYPES:
        for rows, cols in ((1, 1), (7, 2047), (33, 128), (3, 151936)):
            x = torch.randn(rows, cols, device="cuda", dtype=dtype)
            ok &= check(f"softmax {dtype} {rows}x{cols}", m.softmax(x), torch.softmax(x.double(), -1), dtype)
    x = torch.randn(4, 1000, device="cuda", dtype=torch.bfloat16)
    ok &= check("softmax under torch.compile", torch.compile(m.softmax)(x), torch.softmax(x.double(), -1), torch.bfloat16)
    return ok


def smoke_layernorm(m):
    ok = True
    for dtype in DTYPES:
        for rows, hidden in ((1, 4096), (7, 2047), (129, 128)):
            x = torch.randn(rows, hidden, device="cuda", dtype=dtype)
            w, b = (torch.randn(hidden, device="cuda", dtype=dtype) for _ in range(2))
            ref = torch.nn.functional.layer_norm(x.double(), (hidden,), w.double(), b.double(), 1e-5)
            ok &= check(f"layer_norm {dtype} {rows}x{hidden}", m.layer_norm(x, w, b, 1e-5), ref, dtype)
    return ok


def rotate_ref(x, cos, sin):  # half-split pairs; cos / sin [s, d] broadcast over [b, s, h, d]
    x1, x2 = x.double().chunk(2, -1)
    c, s_ = cos.double()[None, :, None, :], sin.double()[None, :, None, :]
    return x.double() * c + torch.cat((-x2, x1), -1) * s_


def smoke_rope(m):
    ok = True
    for dtype in DTYPES:
        b, s, h, d = 2, 37, 4, 128
        q, k = (torch.randn(b, s, h, d, device="cuda", dtype=dtype) for _ in range(2))
        angle = torch.arange(s, device="cuda", dtype=torch.float64)[:, None] * (
            10000.0 ** (-torch.arange(0, d, 2, device="cuda", dtype=torch.float64) / d))
        cos, sin = torch.cat((angle, angle), -1).cos().float(), torch.cat((angle, angle), -1).sin().float()
        want_q, want_k = rotate_ref(q, cos, sin), rotate_ref(k, cos, sin)
        got_q, got_k = m.rope(q.clone(), k.clone(), cos, sin)
        ok &= check(f"rope q {dtype} {b}x{s}x{h}x{d}", got_q, want_q, dtype)
        ok &= check(f"rope k {dtype} {b}x{s}x{h}x{d}", got_k, want_k, dtype)
        positions = torch.arange(s, device="cuda").expand(b, s).contiguous()
        got_q, _ = m.rope_positions(q.clone(), k.clone(), positions, 10000.0)
        ok &= check(f"rope_positions q {dtype}", got_q, want_q, dtype)
        # Each head RMS-normalized (rounded to the dtype, as rms_norm stores it), then rotated.
        w = torch.randn(d, device="cuda", dtype=dtype)
        normed = (q.double() * torch.rsqrt(q.double().pow(2).mean(-1, keepdim=True) + 1e-6)
                  * w.double()).to(dtype)
        got_q, _ = m.qk_norm_rope(q.clone(), k.clone(), w, w, cos, sin, 1e-6)
        ok &= check(f"qk_norm_rope q {dtype}", got_q, rotate_ref(normed, cos, sin), dtype)
    return ok


def gated_smoke(name, pair_fn, split_fn, act):
    ok = True
    for dtype in DTYPES:
        for rows, d in ((1, 1), (7, 2047), (33, 4096)):
            gate, up = (torch.randn(rows, d, device="cuda", dtype=dtype) for _ in range(2))
            want = act(gate.double()) * up.double()
            ok &= check(f"{name} pair {dtype} {rows}x{d}", pair_fn(gate, up), want, dtype)
            ok &= check(f"{name} fused {dtype} {rows}x{d}", split_fn(torch.cat((gate, up), -1)), want, dtype)
    return ok


def smoke_swiglu(m):
    return gated_smoke("silu_mul", m.silu_mul, m.swiglu, torch.nn.functional.silu)


def smoke_geglu(m):
    return gated_smoke("gelu_mul", m.gelu_mul, m.geglu, torch.nn.functional.gelu)


def smoke_adaln(m):
    ok = True
    for dtype in DTYPES:
        for batch, tokens, hidden in ((1, 7, 2047), (2, 33, 4096)):
            x = torch.randn(batch, tokens, hidden, device="cuda", dtype=dtype)
            scale, shift = (torch.randn(batch, hidden, device="cuda", dtype=dtype) for _ in range(2))
            x64 = x.double()
            normed = torch.nn.functional.layer_norm(x64, (hidden,), eps=1e-6)
            want = normed * (1 + scale.double()[:, None]) + shift.double()[:, None]
            ok &= check(f"adaptive_norm layer {dtype} {batch}x{tokens}x{hidden}",
                        m.adaptive_norm(x, scale, shift, "layer", 1e-6), want, dtype)
            y, gate = torch.randn_like(x), torch.randn(batch, hidden, device="cuda", dtype=dtype)
            ok &= check(f"gated_residual {dtype}", m.gated_residual(x, y, gate),
                        x64 + y.double() * gate.double()[:, None], dtype)
    return ok


def smoke_gemm_fp32(m):
    ok = True
    for mm, n, k in ((1, 1, 1), (127, 65, 33), (1000, 1000, 1000)):
        a, b = torch.randn(mm, k, device="cuda"), torch.randn(k, n, device="cuda")
        bias = torch.randn(n, device="cuda")
        ok &= check(f"gemm {mm}x{n}x{k}", m.gemm(a, b, bias), a.double() @ b.double() + bias.double(), torch.float32)
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
          "fused_add_rmsnorm": smoke_fused_add_rmsnorm, "head_rmsnorm": smoke_head_rmsnorm,
          "softmax": smoke_softmax, "layernorm": smoke_layernorm, "rope": smoke_rope,
          "swiglu": smoke_swiglu, "geglu": smoke_geglu, "adaln": smoke_adaln,
          "gemm_fp32": smoke_gemm_fp32}


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
