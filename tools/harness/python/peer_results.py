"""The numbers of the OUT document: one implementation's result in one case (value check,
timing, GB/s, the impossible-speed flag), speedups, and the atomic write of OUT."""

import json
import math
import os
import tempfile
from dataclasses import dataclass, field

from peer_timing import Timing

SCHEMA = "kbuild-peer-results/1"
IMPOSSIBLE_SLACK = 1.05  # physics.h kImpossibleSlack: 5% for measurement noise


@dataclass
class Result:
    """Our op or one peer in one case."""
    timing: Timing = field(default_factory=Timing)  # median 0 when not timed
    problem: str = ""  # value check, timing or physics; "" when the numbers stand
    max_abs_error: float = 0.0
    gbps: float = 0.0


def finite(value):
    """JSON has no NaN or Inf: a number that is not finite is written as 0."""
    value = float(value)
    return value if math.isfinite(value) else 0.0


def gbps(bytes_moved, median_us):
    return bytes_moved / (median_us * 1e-6) / 1e9 if bytes_moved > 0 and median_us > 0 else 0.0


def impossible_problem(rate_gbps, peak_gbps, dram_gbps=0.0):
    """physics.cpp's CheckPhysics for bytes: above the larger of the copy bandwidth and the DRAM's
    theoretical rate, with the slack."""
    limit = max(peak_gbps, dram_gbps)
    if limit > 0 and rate_gbps > limit * IMPOSSIBLE_SLACK:
        limits = ([f"the copy bandwidth {peak_gbps:.0f} GB/s"] if peak_gbps > 0 else []) + \
                 ([f"the DRAM's theoretical {dram_gbps:.0f} GB/s"] if dram_gbps > 0 else [])
        return f"impossible: {rate_gbps:.0f} GB/s is above " + " and ".join(limits)
    return ""


def make_result(value_problem, max_abs_error, timing, bytes_moved, peak_gbps, dram_gbps=0.0):
    """The first problem wins: the value check, then the timing, then physics."""
    timing = timing or Timing()
    rate = gbps(bytes_moved, timing.median)
    problem = (value_problem or timing.problem or
               (impossible_problem(rate, peak_gbps, dram_gbps) if timing.median > 0 else ""))
    return Result(timing, problem, max_abs_error, rate)


def speedup(peer, ours):
    """Peer median over our median; 0 when either is missing or has a problem."""
    if peer.problem or ours.problem or peer.timing.median <= 0 or ours.timing.median <= 0:
        return 0.0
    return finite(peer.timing.median / ours.timing.median)


def time_json(timing):
    return {"median": finite(timing.median), "p10": finite(timing.p10),
            "p90": finite(timing.p90)}


def ours_json(ours):
    return {"time_us": time_json(ours.timing),
            "host_us_per_call": finite(ours.timing.host_us_per_call), "problem": ours.problem}


def peer_json(name, peer, ours):
    return {"name": name, "time_us": time_json(peer.timing),
            "host_us_per_call": finite(peer.timing.host_us_per_call),
            "speedup": speedup(peer, ours), "gbps": finite(peer.gbps),
            "max_abs_error": finite(peer.max_abs_error), "problem": peer.problem}


def write_document(path, doc):
    """Writes JSON to a temporary file in the same folder, then renames it over `path`: a
    reader never sees half a document, and a symbolic link planted at `path` is replaced,
    not followed. Text that is not valid Unicode (a lone surrogate from an undecodable file name)
    is written as '?', so every JSON parser reads the result."""
    data = (json.dumps(doc, indent=1, allow_nan=False, ensure_ascii=False) + "\n").encode(
        "utf-8", errors="replace")
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".peer-results-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
