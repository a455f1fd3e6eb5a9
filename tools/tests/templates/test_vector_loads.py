"""Every template kernel instantiated for aligned rows reads 16-bit data in whole 16-byte vectors.

nvcc turns a `Vec<T, 8>` read through a reference into eight 2-byte loads whenever it can defer
the read (a row op's x and y bound to `const Vec&` parameters did so, and the gated residual ran
at 87% of copy bandwidth while torch.compile reached 97%). The PTX shows it as loads of one
element at offsets +2 .. +14 from one address. A split kernel (a `true` template argument: rows
that start off a 16-byte boundary) reads its edge elements one by one by design, so only the
kernels without one are checked. An evict-first twin (a kernel whose PTX creates the
evict-first policy) has one `true` of its own, which does not make it split. No GPU needed:
nvcc compiles each kernel file to PTX here.

Run: .venv/bin/python -m pytest tools/tests/templates/test_vector_loads.py
"""

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
# A load of one 2-byte element: its address register and byte offset.
ELEMENT_LOAD = re.compile(r"ld\.global\S*?\.[usbf]16\s+%\w+, \[(%rd\d+)(?:\+(\d+))?\]")
ENTRY = re.compile(r"^(?:\.visible )?\.entry (\S+)\((.*?)^\}", re.S | re.M)
EVICT_FIRST_POLICY = "createpolicy.fractional.L2::evict_first"


def find_nvcc():
    """nvcc on PATH, else the CUDA Toolkit's (CUDA_HOME, /usr/local/cuda)."""
    cuda = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "nvcc"
    return shutil.which("nvcc") or (str(cuda) if cuda.is_file() else None)


def kernel_files():
    return sorted(TEMPLATES.glob("*/{{python_name}}_cuda/*.cu"))


def rendered(source: Path, into: Path) -> Path:
    """The template's kernel folder with {{python_name}} filled in (links followed)."""
    folder = into / source.parent.parent.name
    if not folder.exists():
        shutil.copytree(source.parent, folder, symlinks=False)
        for path in folder.rglob("*"):
            if path.is_file():
                path.write_text(path.read_text().replace("{{python_name}}", "x"))
    return folder / source.name


def ptx_of(nvcc: str, unit: Path, defines=()) -> str:
    """The unit's PTX for sm_90a, with -D for each NAME=VALUE of `defines`."""
    ptx = unit.with_suffix(".ptx")
    built = subprocess.run([nvcc, "-std=c++17", "-O3", "-arch=sm_90a",
                            *(f"-D{d}" for d in defines), "-ptx", str(unit), "-o", str(ptx)],
                           capture_output=True, text=True)
    assert built.returncode == 0, f"{unit.name}: {built.stderr[-3000:]}"
    return ptx.read_text()


def demangled(names):
    filt = shutil.which("c++filt")
    if filt is None:
        return list(names)
    out = subprocess.run([filt], input="\n".join(names), capture_output=True, text=True)
    return out.stdout.splitlines()


def kernels(ptx: str):
    """(demangled name, body) of each kernel entry of a PTX file."""
    entries = [(m.group(1), m.group(2)) for m in ENTRY.finditer(ptx)]
    return list(zip(demangled(n for n, _ in entries), (b for _, b in entries)))


def is_split(name: str, body: str) -> bool:
    """A `true` template argument besides an evict-first twin's (whose PTX makes the policy)."""
    return name.count("true") - (EVICT_FIRST_POLICY in body) > 0


def element_loading_kernels(ptx: str):
    """Aligned kernels (no split `true` template argument) with a 16-byte vector read one by
    one."""
    found = []
    for name, body in kernels(ptx):
        if is_split(name, body):
            continue
        vectors = element_read_vectors(body)
        if vectors:
            found.append(f"{name[:200]}: {vectors} vector(s) read element by element")
    return found


def element_read_vectors(body: str) -> int:
    """16-byte windows whose every 2-byte element one address register's loads read (the rule
    of kbuild profile's SASS check)."""
    offsets = {}
    for register, offset in ELEMENT_LOAD.findall(body):
        offsets.setdefault(register, set()).add(int(offset or 0))
    return sum(all(b in seen for b in range(w, w + 16, 2))
               for seen in offsets.values() for w in {o - o % 16 for o in seen})


def test_the_check_sees_a_vector_read_element_by_element(tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("no nvcc on this machine")
    unit = tmp_path / "probe.cu"
    unit.write_text(r"""
#include <cuda_bf16.h>
struct alignas(16) V8 { __nv_bfloat16 v[8]; };
__device__ __forceinline__ V8 Fma(const V8& x, const V8& y, float g) {
  V8 o;
#pragma unroll
  for (int i = 0; i < 8; ++i)
    o.v[i] = __float2bfloat16(fmaf(g, __bfloat162float(y.v[i]), __bfloat162float(x.v[i])));
  return o;
}
__global__ void ByReference(V8* out, const V8* __restrict__ x, const V8* __restrict__ y, float g) {
  out[threadIdx.x] = Fma(x[threadIdx.x], y[threadIdx.x], g);
}
__global__ void ByValue(V8* out, const V8* __restrict__ x, const V8* __restrict__ y, float g) {
  const V8 a = x[threadIdx.x], b = y[threadIdx.x];
  out[threadIdx.x] = Fma(a, b, g);
}
""")
    found = element_loading_kernels(ptx_of(nvcc, unit))
    assert len(found) == 1 and "ByReference" in found[0], found


def test_only_a_true_besides_the_evict_first_twins_own_marks_a_split_kernel():
    policy = f"{EVICT_FIRST_POLICY}.b64 %rd1, 1.0;"
    assert not is_split("K<8, 2, false>", "")
    assert is_split("K<8, 2, true>", "")
    assert not is_split("K<8, false, (Read)2, true>", policy)
    assert is_split("K<8, true, (Read)2, true>", policy)
    assert not is_split("E<8, false, Gated<bf16, Silu, true> >", policy)
    assert is_split("E<8, true, Gated<bf16, Silu, true> >", policy)


def test_aligned_template_kernels_load_whole_vectors(tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("no nvcc on this machine")
    units = [rendered(f, tmp_path) for f in kernel_files()]
    assert len(units) >= 10, "the templates' kernel files were not found"
    with ThreadPoolExecutor(max_workers=2) as pool:  # two cores here and in CI
        ptxs = list(pool.map(lambda u: ptx_of(nvcc, u), units))
    problems = [f"{u.parent.name}/{u.name}: {k}"
                for u, ptx in zip(units, ptxs) for k in element_loading_kernels(ptx)]
    assert not problems, "\n".join(problems)
    checked_twins = [name for ptx in ptxs for name, body in kernels(ptx)
                     if EVICT_FIRST_POLICY in body and not is_split(name, body)]
    assert checked_twins, "no aligned evict-first twin was checked"
