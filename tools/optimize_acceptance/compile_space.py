#!/usr/bin/env python3
"""Compiles the naive kernel at every point of its project's [tune] space, no GPU.

nvcc with the flags kbuild builds the kernel with (tools/kbuild/src/core/cmake_gen.cpp:
-O3 -lineinfo --expt-relaxed-constexpr -Xptxas=-warn-spills, C++17) plus -Xptxas -v, for
one architecture (sm_90a: the H200's), the points' macros as -D flags. Prints one row per
point: the most registers any of its kernels (one per dtype pair and load width) uses, the
most spill bytes (stores / loads) and the shared memory. Exits 1 when a point does not
compile or spills more than the space's max-spill-bytes. Every point of the full grid:
the space has no constraints (make_projects.sh).
Usage: compile_space.py PROJECT_DIR [NAME=V1,V2 ...]
  PROJECT_DIR  naive-rmsnorm/ as make_projects.sh writes it
  NAME=V1,...  only these values of a parameter (e.g. NAIVE_LANES=128,512)
"""
import concurrent.futures
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

USAGE = "usage: compile_space.py PROJECT_DIR [NAME=V1,V2 ...]"
ARCH = "90a"
FLAGS = ["-std=c++17", "-O3", "-lineinfo", "--expt-relaxed-constexpr", "-Xptxas=-warn-spills",
         "-Xptxas", "-v", f"-gencode=arch=compute_{ARCH},code=sm_{ARCH}"]


def compile_point(kernel, defines, out_dir):
    """(registers, spill stores, spill loads, smem bytes, error text or '')."""
    obj = Path(out_dir) / ("_".join(f"{n}{v}" for n, v in defines) + ".o")
    cmd = ["nvcc", *FLAGS, f"-I{kernel.parent}", *[f"-D{n}={v}" for n, v in defines],
           "-c", str(kernel), "-o", str(obj)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    log = done.stdout + done.stderr
    if done.returncode != 0:
        return 0, 0, 0, 0, log.strip()
    registers = [int(n) for n in re.findall(r"Used (\d+) registers", log)]
    stores = [int(n) for n in re.findall(r"(\d+) bytes spill stores", log)]
    loads = [int(n) for n in re.findall(r"(\d+) bytes spill loads", log)]
    smem = [int(n) for n in re.findall(r"(\d+) bytes smem", log)]
    if not registers:
        return 0, 0, 0, 0, "no ptxas report in nvcc's output"
    return max(registers), max(stores, default=0), max(loads, default=0), max(smem, default=0), ""


def main(argv):
    if len(argv) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    if not shutil.which("nvcc"):
        print("compile_space.py: no nvcc on PATH", file=sys.stderr)
        return 2
    project = Path(argv[1])
    kernels = sorted(project.glob("*_cuda/rms_norm.cu"))
    if len(kernels) != 1:
        print(f"{project}: expected one */rms_norm.cu, found {len(kernels)}", file=sys.stderr)
        return 2
    tune = tomllib.loads((project / "kbuild.toml").read_text())["tune"]
    params = {name: [str(v) for v in values] for name, values in tune["params"].items()}
    for arg in argv[2:]:
        name, _, values = arg.partition("=")
        if name not in params:
            print(f"{arg}: no parameter {name} in the space ({', '.join(params)})", file=sys.stderr)
            return 2
        params[name] = values.split(",")
    max_spill = tune.get("max-spill-bytes", 0)
    points = [list(zip(params, values)) for values in itertools.product(*params.values())]
    with tempfile.TemporaryDirectory() as out_dir, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda p: compile_point(kernels[0], p, out_dir), points))
    failures = 0
    print(f"sm_{ARCH}, {len(points)} points of {project / 'kbuild.toml'} "
          f"(max-spill-bytes {max_spill})")
    for point, (registers, stores, loads, smem, error) in zip(points, results):
        name = " ".join(f"{n}={v}" for n, v in point)
        if error:
            failures += 1
            print(f"FAIL {name}: does not compile\n{error}")
            continue
        bad = max(stores, loads) > max_spill
        failures += bad
        print(f"{'FAIL' if bad else 'ok  '} {name}: {registers} registers, spills "
              f"{stores}/{loads} bytes (stores/loads), {smem} bytes smem")
    print(f"compile check: {len(points) - failures} of {len(points)} points ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
