#!/usr/bin/env python3
"""Compares the SASS of a template's kernels between two builds, with no GPU.

Side A and side B are each the working tree or a git revision (--rev-a / --rev-b), compiled
with kbuild's device flags for sm_90a plus that side's -D macros (-a / -b NAME=VALUE). Per
.cu file: how many kernels are instruction-for-instruction identical, and for each that is
not, its registers, spill bytes, instructions and MUFU.EX2 (exp) count, A -> B.

Two uses: before an A/B knob becomes the default ("the default build is SASS-identical to the
knob build that was tested on the GPU"), and after a change meant to leave the kernels alone.
A change that adds a trailing bool template argument (a kernel's twin for one case) renames
every kernel; --added-arg false compares each of B's kernels whose new argument is false with
A's kernel of the name without it, and lists the twins (true) as only in B.

  python3 tools/peer_bench/sass_diff.py softmax -b SOFTMAX_EXPS_IN_PLACE=1
  python3 tools/peer_bench/sass_diff.py layernorm --rev-a 6756e2e -a LAYER_NORM_EARLY_PARAMS=1
  python3 tools/peer_bench/sass_diff.py softmax --rev-a HEAD --expect-identical
  python3 tools/peer_bench/sass_diff.py adaln --rev-a HEAD~1 --added-arg false

Exit 0; 1 with --expect-identical when a kernel differs or exists on one side only; 2 on bad
input; 3 when a side does not compile.
"""

import argparse
import io
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import kernel_resources

# kbuild's release flags for a kernel (tools/kbuild/src/core/cmake_gen.cpp, CudaFlagsFor).
NVCC_FLAGS = ["-std=c++17", "-O3", "-lineinfo", "--expt-relaxed-constexpr", "-Xptxas", "-v",
              kernel_resources.GENCODE]
MACRO = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")


def checkout(repo: Path, rev: str, dst: Path) -> Path:
    """templates/ of `rev` extracted under dst (links inside the tree kept, none leaving it)."""
    tar = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", rev, "templates"],
                         capture_output=True)
    if tar.returncode != 0:
        raise SystemExit(f"sass_diff: git archive {rev}: {tar.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
        archive.extractall(dst, filter="data")
    return dst


def normalized(mangled: str) -> str:
    """The name without its anonymous namespace's identifier (<length>_GLOBAL__N__...), which
    nvcc derives from the file's path: equal kernels of two checkouts differ only there."""
    m = re.search(r"(\d+)_GLOBAL__N__", mangled)
    if not m:
        return mangled
    end = m.end(1) + int(m.group(1))
    return mangled[:m.start()] + "_ANON_" + mangled[end:]


def kernels_of(sass: str):
    """{normalized name: (mangled name, [instructions])} of `cuobjdump -sass` output."""
    bodies, current = {}, None
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = bodies.setdefault(normalized(m.group(1)), (m.group(1), []))[1]
            continue
        m = INSTRUCTION.search(line)
        if m and current is not None:
            current.append(m.group(1))
    return bodies


def build(templates: Path, template: str, macros, work: Path, cuobjdump: str, nvcc: str):
    """{file: {kernel: {"mangled", "body", "registers", "spill_bytes"}}} of one side."""
    root = kernel_resources.render(template, work, templates.parent)
    defines = [f"-D{m}" for m in macros]
    out = {}
    for cu in sorted(root.rglob("*.cu")):
        obj = cu.with_suffix(".o")
        r = subprocess.run([nvcc, *NVCC_FLAGS, *defines, "-c", str(cu), "-o", str(obj)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{cu.name} {' '.join(defines)}: compile failed:\n{r.stderr[-4000:]}")
            raise SystemExit(3)
        usage = {normalized(v["mangled"]): v
                 for v in kernel_resources.ptxas_usage(r.stderr).values()}
        sass = subprocess.run([cuobjdump, "-sass", str(obj)], capture_output=True,
                              text=True).stdout
        out[cu.name] = {}
        for name, (mangled, body) in kernels_of(sass).items():
            ptxas = usage.get(name, {})
            out[cu.name][name] = {
                "mangled": mangled, "body": body, "registers": ptxas.get("registers"),
                "spill_bytes": ptxas.get("spill_stores", 0) + ptxas.get("spill_loads", 0)}
    return out


# A bool template argument's value as the Itanium ABI mangles it (an expression literal).
MANGLED_BOOL = {"false": "Lb0E", "true": "Lb1E"}


def without_added_arg(side_a, side_b, value: str):
    """side_b with each kernel whose name, less one `value` argument that ends a template
    argument list (an added trailing argument), names a kernel of side_a (and no other of
    side_b) renamed to that name; the number renamed."""
    token = MANGLED_BOOL[value]
    out, renamed = {}, 0
    for file, kb in side_b.items():
        ka = side_a.get(file, {})
        out[file] = {}
        for name, kernel in kb.items():
            target = name
            if name not in ka:
                # Followed by the list's closing E: the last argument of its template.
                ends = [m.start() for m in re.finditer(re.escape(token) + "(?=E)", name)]
                found = {name[:i] + name[i + len(token):] for i in ends}
                found = [n for n in found if n in ka and n not in kb and n not in out[file]]
                if len(found) == 1:
                    target, renamed = found[0], renamed + 1
            out[file][target] = kernel
    return out, renamed


def summary(a, b) -> str:
    """registers, spills, instructions and exps, A -> B."""
    def count(k, op):
        return sum(1 for i in k["body"] if op in i)

    return (f"registers {a['registers']} -> {b['registers']}, "
            f"spilled bytes {a['spill_bytes']} -> {b['spill_bytes']}, "
            f"instructions {len(a['body'])} -> {len(b['body'])}, "
            f"MUFU.EX2 {count(a, 'MUFU.EX2')} -> {count(b, 'MUFU.EX2')}")


def compare(side_a, side_b, show):
    """Prints each file's verdict; returns the number of kernels that differ or are one-sided."""
    differ = 0
    for file in sorted(set(side_a) | set(side_b)):
        ka, kb = side_a.get(file, {}), side_b.get(file, {})
        names = sorted(set(ka) | set(kb))
        changed = [n for n in names if n in ka and n in kb and ka[n]["body"] != kb[n]["body"]]
        only_a = [n for n in names if n not in kb]
        only_b = [n for n in names if n not in ka]
        same = len(names) - len(changed) - len(only_a) - len(only_b)
        print(f"{file}: {len(names)} kernels, {same} identical, {len(changed)} differ, "
              f"{len(only_a)} only in A, {len(only_b)} only in B")
        shown = kernel_resources.demangle(
            [(ka.get(n) or kb[n])["mangled"] for n in changed + only_a + only_b])
        for name, short in list(zip(changed, shown))[:show]:
            print(f"  {short}: {summary(ka[name], kb[name])}")
        for name, short in zip(only_a + only_b, shown[len(changed):]):
            print(f"  only in {'A' if name in ka else 'B'}: {short}")
        if len(changed) > show:
            print(f"  ... {len(changed) - show} more differ (--show N)")
        differ += len(changed) + len(only_a) + len(only_b)
    return differ


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("template", help="a folder of templates/ (softmax, layernorm, ...)")
    p.add_argument("-a", action="append", default=[], metavar="NAME=VALUE",
                   help="a macro of side A (repeatable)")
    p.add_argument("-b", action="append", default=[], metavar="NAME=VALUE",
                   help="a macro of side B (repeatable)")
    p.add_argument("--rev-a", help="side A's git revision (default: the working tree)")
    p.add_argument("--rev-b", help="side B's git revision (default: the working tree)")
    p.add_argument("--repo", type=Path, default=kernel_resources.REPO,
                   help="the repository holding templates/ (default: this one)")
    p.add_argument("--show", type=int, default=40, help="differing kernels listed per file")
    p.add_argument("--added-arg", choices=sorted(MANGLED_BOOL), metavar="false|true",
                   help="B's kernels carry one more bool template argument: compare those where "
                        "it has this value with A's kernel of the name without it")
    p.add_argument("--expect-identical", action="store_true",
                   help="exit 1 when any kernel differs or exists on one side only")
    args = p.parse_args(argv)
    for m in args.a + args.b:
        if not MACRO.fullmatch(m):
            p.error(f"not a macro NAME or NAME=VALUE: {m!r}")
    for rev in (args.rev_a, args.rev_b):
        if rev is not None and (not rev or rev.startswith("-")):
            p.error(f"not a git revision: {rev!r}")
    if not re.fullmatch(r"[A-Za-z0-9_]+", args.template):
        p.error(f"not a template name: {args.template!r}")
    cuobjdump = kernel_resources.find_cuobjdump()
    nvcc = kernel_resources.find_nvcc()
    if not cuobjdump or not nvcc:
        print("sass_diff: needs nvcc and cuobjdump (PATH, $CUDA_HOME/bin, triton's copy)")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        sides = []
        for name, rev, macros in (("a", args.rev_a, args.a), ("b", args.rev_b, args.b)):
            tree = (checkout(args.repo, rev, Path(tmp) / f"rev-{name}") if rev
                    else args.repo) / "templates"
            if not (tree / args.template).is_dir():
                print(f"sass_diff: no template {args.template!r} in {rev or 'the working tree'}")
                return 2
            sides.append(build(tree, args.template, macros, Path(tmp) / f"build-{name}",
                               cuobjdump, nvcc))
    print(f"A: {args.rev_a or 'working tree'} {' '.join('-D' + m for m in args.a)}".rstrip())
    print(f"B: {args.rev_b or 'working tree'} {' '.join('-D' + m for m in args.b)}".rstrip())
    if args.added_arg:
        side_b, renamed = without_added_arg(*sides, args.added_arg)
        sides = [sides[0], side_b]
        print(f"B's kernels matched to A's without an added {args.added_arg}: {renamed}")
    differ = compare(*sides, args.show)
    return 1 if differ and args.expect_identical else 0


if __name__ == "__main__":
    sys.exit(main())
