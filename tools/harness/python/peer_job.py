"""Reads and validates the JOB file kbuild writes for the peer worker (format:
tools/harness/python/README.md). The file is treated as hostile: bounded size, no symbolic
link followed, every field's type and range checked, one-line errors naming the field."""

import errno
import json
import math
import os
import stat
from dataclasses import dataclass

import torch

SCHEMA = "kbuild-peer-job/1"
MAX_JOB_BYTES = 16 << 20
MAX_CASES = 100_000
MAX_DIMS = 16
MAX_ITERATIONS = 100_000
MAX_TEXT = 4096

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32,
          "fp64": torch.float64, "int32": torch.int32, "int64": torch.int64,
          "uint8": torch.uint8, "bool": torch.bool}


class JobError(Exception):
    """The job cannot be used; the message is one line."""


@dataclass(frozen=True)
class Case:
    """One benchmark case; make_inputs(case) reads shape, dtype, device and name."""
    benchmark: str
    name: str
    shape: tuple
    dtype: torch.dtype
    dtype_name: str
    bytes: float
    atol: float
    rtol: float
    correctness_only: bool
    device: str = "cuda"


@dataclass(frozen=True)
class Job:
    peers_file: str
    project_library: str  # "" loads nothing
    namespace: str  # torch.ops.<namespace> is given to ours(); "" means aten
    graph: bool
    warmup: int
    iterations: int
    peak_gbps: float  # 0 when unknown: no impossible check
    cases: tuple
    # False when `kbuild bench --iters` asked for exactly `iterations`; else long calls are timed
    # fewer times (peer_timing.iterations_within_budget). Absent: True.
    cap_long_calls: bool = True
    # The DRAM's theoretical rate (physics.h TheoreticalDramGbps): a read-mostly peer may pass the
    # copy bandwidth, never this. Absent or 0: unknown.
    dram_gbps: float = 0.0


KIND_NAMES = {bool: "true or false", int: "an integer", str: "a string", list: "a list",
              (int, float): "a number"}


def _field(doc, key, kind, where):
    if key not in doc:
        raise JobError(f"{where}: no '{key}'")
    value = doc[key]
    # bool is an int in Python: never accept one for the other.
    ok = isinstance(value, bool) if kind is bool else (
        isinstance(value, kind) and not isinstance(value, bool))
    if not ok:
        raise JobError(f"{where}.{key}: {json.dumps(value)[:80]} is not {KIND_NAMES[kind]}")
    return value


def _text(doc, key, where, allow_empty=False):
    value = _field(doc, key, str, where)
    if (not value and not allow_empty) or len(value) > MAX_TEXT or "\0" in value:
        raise JobError(f"{where}.{key}: must be a non-empty string under {MAX_TEXT} characters")
    return value


def _number(doc, key, where, low=0.0):
    value = _field(doc, key, (int, float), where)
    try:
        number = float(value)  # a JSON integer past float's range raises OverflowError
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or number < low:
        raise JobError(f"{where}.{key}: {str(value)[:80]} is not a finite number >= {low:g}")
    return number


def _count(doc, key, where, low, high):
    value = _field(doc, key, int, where)
    if not low <= value <= high:
        raise JobError(f"{where}.{key}: {value} is outside {low}..{high}")
    return value


def _case(doc, where):
    if not isinstance(doc, dict):
        raise JobError(f"{where}: not an object")
    shape = _field(doc, "shape", list, where)
    if len(shape) > MAX_DIMS or any(
            not isinstance(d, int) or isinstance(d, bool) or not 0 <= d < (1 << 62) for d in shape):
        raise JobError(f"{where}.shape: expected at most {MAX_DIMS} non-negative integers")
    dtype = _text(doc, "dtype", where)
    if dtype not in DTYPES:
        raise JobError(f"{where}.dtype: '{dtype}' is not one of {', '.join(DTYPES)}")
    return Case(_text(doc, "benchmark", where), _text(doc, "case", where), tuple(shape),
                DTYPES[dtype], dtype, _number(doc, "bytes", where), _number(doc, "atol", where),
                _number(doc, "rtol", where), _field(doc, "correctness_only", bool, where))


def parse_job(doc, where="job"):
    """A parsed JSON document -> Job; JobError names the first bad field."""
    if not isinstance(doc, dict):
        raise JobError(f"{where}: not a JSON object")
    schema = doc.get("schema")
    if schema != SCHEMA:
        raise JobError(f"{where}: schema {json.dumps(schema)[:80]} is not \"{SCHEMA}\" "
                       "(kbuild and its data folder are from different versions?)")
    namespace = _text(doc, "namespace", where, allow_empty=True)
    if namespace and not namespace.isidentifier():
        raise JobError(f"{where}.namespace: '{namespace}' is not a Python identifier")
    cases = _field(doc, "cases", list, where)
    if len(cases) > MAX_CASES:
        raise JobError(f"{where}.cases: {len(cases)} cases, more than {MAX_CASES}")
    return Job(_text(doc, "peers_file", where),
               _text(doc, "project_library", where, allow_empty=True), namespace,
               _field(doc, "graph", bool, where), _count(doc, "warmup", where, 0, MAX_ITERATIONS),
               _count(doc, "iterations", where, 1, MAX_ITERATIONS),
               _number(doc, "peak_gbps", where),
               tuple(_case(c, f"{where}.cases[{i}]") for i, c in enumerate(cases)),
               _field(doc, "cap_long_calls", bool, where) if "cap_long_calls" in doc else True,
               _number(doc, "dram_gbps", where) if "dram_gbps" in doc else 0.0)


def read_job(path):
    """Reads the JOB file without following a symbolic link, at most MAX_JOB_BYTES."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        reason = "a symbolic link (refused)" if e.errno == errno.ELOOP else e.strerror
        raise JobError(f"{path}: cannot open it: {reason}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise JobError(f"{path}: not a regular file")
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_JOB_BYTES + 1)
    if len(data) > MAX_JOB_BYTES:
        raise JobError(f"{path}: larger than {MAX_JOB_BYTES} bytes")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise JobError(f"{path}: not valid JSON: {e}") from None
    return parse_job(doc, os.path.basename(path))
