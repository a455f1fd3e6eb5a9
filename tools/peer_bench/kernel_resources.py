#!/usr/bin/env python3
"""Compiles every .cu of the RMSNorm templates for sm_90a (no GPU needed) and
reports, per kernel instantiation: registers, spills, and the widest global
loads/stores in the SASS (LDG.E.128 / STG.E.128 = 16-byte vectors), and that every kernel
waits for the previous one (griddepcontrol.wait, SASS ACQBULK) before its first global access,
as kernels launched overlapped (common/overlap.cuh) must.

Usage: python3 tools/peer_bench/kernel_resources.py [--json out.json]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = ("rmsnorm", "fused_add_rmsnorm", "head_rmsnorm")
GENCODE = "-gencode=arch=compute_90a,code=sm_90a"


def render(template: str, dst: Path, repo: Path = REPO) -> Path:
    """Copies repo's template with {{python_name}} = the template's name."""
    src = repo / "templates" / template
    for path in src.rglob("*"):
        if not path.is_file() or path.name in ("template.toml", "kernels.toml.in"):
            continue
        rel = str(path.relative_to(src)).replace("{{python_name}}", template)
        out = dst / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(path.read_text().replace("{{python_name}}", template))
    return dst


def find_cuda_tool(name: str):
    """A CUDA Toolkit program on PATH, else in $CUDA_HOME/bin (default /usr/local/cuda)."""
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for c in (shutil.which(name), f"{cuda}/bin/{name}"):
        if c and Path(c).is_file():
            return c
    return None


def find_nvcc():
    return find_cuda_tool("nvcc")


def find_cuobjdump():
    found = find_cuda_tool("cuobjdump")
    if found:
        return found
    try:  # triton wheels ship one
        import triton

        c = Path(triton.__file__).parent / "backends/nvidia/bin/cuobjdump"
        return str(c) if c.is_file() else None
    except ImportError:
        return None


def without_parameters(name: str) -> str:
    """A demangled function's name up to its parameter list: the first '(' outside the
    template arguments, whose enum values are spelled "(Kind)1" and must stay apart."""
    depth = 0
    for i, c in enumerate(name):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == "(" and depth == 0:
            return name[:i]
    return name


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                         text=True).stdout.splitlines()
    short = []
    for n in out:
        n = without_parameters(n.replace("(anonymous namespace)::", "")).replace("void ", "")
        short.append(n.replace("kernels_common::", "").replace("__nv_bfloat16", "bf16")
                     .replace("__half", "fp16"))
    return short


def ptxas_usage(log: str):
    pat = re.compile(r"Function properties for (\S+)\n\s+(\d+) bytes stack frame, "
                     r"(\d+) bytes spill stores, (\d+) bytes spill loads\n.*?Used (\d+) "
                     r"registers", re.S)
    found = pat.findall(log)
    names = demangle([f[0] for f in found])
    return {n: {"registers": int(f[4]), "spill_stores": int(f[2]), "spill_loads": int(f[3]),
                "mangled": f[0]} for n, f in zip(names, found)}


def sass_memory_ops(cuobjdump: str, obj: Path):
    """Per kernel: counts of global loads/stores by width, and whether the first of them comes
    after griddepcontrol.wait (SASS ACQBULK), as a kernel launched overlapped must have it."""
    sass = subprocess.run([cuobjdump, "--dump-sass", str(obj)], capture_output=True,
                          text=True).stdout
    ops, current = {}, None
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = m.group(1)
            ops[current] = {"counts": {}, "waits_first": None}
            continue
        if not current:
            continue
        if "ACQBULK" in line and ops[current]["waits_first"] is None:
            ops[current]["waits_first"] = True
        m = re.search(r"\b((?:LDG|STG)\.E[\w.]*)", line)
        if m:
            counts = ops[current]["counts"]
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
            if ops[current]["waits_first"] is None:
                ops[current]["waits_first"] = False
    return ops


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", help="write the full table here")
    args = p.parse_args()
    nvcc = find_nvcc() or "nvcc"
    cuobjdump = find_cuobjdump()
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        for template in TEMPLATES:
            root = render(template, Path(tmp) / template)
            for cu in sorted(root.rglob("*.cu")):
                obj = cu.with_suffix(".o")
                r = subprocess.run([nvcc, "-std=c++17", "-O3", GENCODE, "-Xptxas", "-v",
                                    "-c", str(cu), "-o", str(obj)],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"{cu.name}: compile failed:\n{r.stderr}")
                    return 3
                usage = ptxas_usage(r.stderr)
                memops = sass_memory_ops(cuobjdump, obj) if cuobjdump else {}
                for info in usage.values():
                    sass = memops.get(info.pop("mangled"), {})
                    info["memory_ops"] = sass.get("counts", {})
                    info["waits_before_memory"] = sass.get("waits_first")
                report[f"{template}/{cu.name}"] = usage
    for unit, kernels in report.items():
        spills = [k for k, v in kernels.items() if v["spill_stores"] or v["spill_loads"]]
        regs = [v["registers"] for v in kernels.values()]
        early = [k for k, v in kernels.items() if v["waits_before_memory"] is False]
        print(f"{unit}: {len(kernels)} kernels, registers {min(regs)}-{max(regs)}, "
              f"spilling: {len(spills)}, touching memory before griddepcontrol.wait: "
              f"{len(early) if cuobjdump else 'not checked'}")
        for k in early:
            print(f"  before the wait: {k}")
        for k, v in kernels.items():
            if "<bf16, bf16, 8" in k:  # the 16-byte bf16 paths
                print(f"  {k}: {v['registers']} regs, {v['memory_ops']}")
    if not cuobjdump:
        print("cuobjdump not found (PATH, $CUDA_HOME/bin, triton): SASS not checked")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
