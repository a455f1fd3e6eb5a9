"""GPU timing of a Python callable by the rules of the C++ harness (tools/harness/src/timing.cpp),
so that a peer and our op timed in the same process are measured alike.

Keep in step with timing.cpp and stats.cpp: the warm-up, the L2 flush (a write of max(2 x L2,
1 MiB) then a read of it, before each eager call), events on the current stream, the host kept ahead of the GPU
(include/kbuild/harness/host_ahead.h: a pilot of up to 32 timed iterations and 32 bare calls
behind a spin of 100 us per call; then chunks of at most 32 timed iterations, each behind one
spin of 1.5 x chunk x host time per iteration + 50 us capped at 500 ms; a chunk with a call
enqueued after the GPU reached its start event is timed again behind a spin twice as long, and
fails the timing after 3 attempts), host time per call, graph mode (capture
`iterations` calls rotated over the input sets, 20 replays), the consistency check (host clock over events > 1.5 x + 200 us) and the
percentiles. tools/harness/python/README.md describes the rules.
"""

import contextlib
import math
import time
from dataclasses import dataclass, field

import torch

from gpu_clock import behind_spin, cycles_per_us, elapsed_us, events, gc_paused, l2_flush, spin
from peer_text import describe_exception

GRAPH_REPLAYS = 20
MAX_INPUT_SETS = 64  # benchmark.cpp kMaxInputSets
SPIN_MARGIN = 1.5
SPIN_SLACK_US = 50.0
SPIN_CAP_US = 500_000.0
HOST_OVER_EVENT_LIMIT = 1.5  # timing.h kHostOverEventLimit
HOST_ALLOWANCE_US = 200.0  # timing.h kHostAllowanceUs
PILOT_SPIN_US_PER_CALL = 100.0  # host_ahead.h kPilotSpinUsPerCall
# host_ahead.h kIterationsPerSpin: a stream holds ~1021 pending operations; a longer run behind one
# spin would make the host wait for the GPU, which the fell-behind check cannot tell from a slow host.
ITERATIONS_PER_SPIN = 32
# host_ahead.h kChunkAttempts: a chunk with a late call is timed again behind a spin twice as long.
CHUNK_ATTEMPTS = 3
# host_ahead.h kTimedBudgetUs, kMinCappedIterations: long calls are timed fewer times.
TIMED_BUDGET_US = 1_000_000.0
MIN_CAPPED_ITERATIONS = 20


def iterations_within_budget(requested, warmup_us_per_call):
    """host_ahead.h IterationsWithinBudget: `requested`, cut so the timed calls take about
    TIMED_BUDGET_US of GPU time by the warm-up's time per call (0: no cut), at least
    MIN_CAPPED_ITERATIONS unless fewer were requested."""
    if not warmup_us_per_call > 0:
        return requested
    fitting = math.floor(TIMED_BUDGET_US / warmup_us_per_call)
    if fitting >= requested:
        return requested
    return min(requested, max(MIN_CAPPED_ITERATIONS, fitting))


@dataclass
class Timing:
    samples_us: list = field(default_factory=list)
    median: float = 0.0
    p10: float = 0.0
    p90: float = 0.0
    host_us_per_call: float = 0.0
    problem: str = ""  # "" when the numbers can be published


def percentile(sorted_samples, q):
    """Linear interpolation between closest ranks, as stats.cpp's Percentile."""
    if not sorted_samples:
        return 0.0
    rank = min(max(q, 0.0), 1.0) * (len(sorted_samples) - 1)
    lo, hi = math.floor(rank), math.ceil(rank)
    return sorted_samples[lo] + (sorted_samples[hi] - sorted_samples[lo]) * (rank - lo)


def summarize(samples, host_us_per_call=0.0, problem=""):
    ordered = sorted(samples)
    return Timing(list(samples), percentile(ordered, 0.5), percentile(ordered, 0.1),
                  percentile(ordered, 0.9), host_us_per_call, problem)


def input_set_count(bytes_per_set, l2_bytes):
    """Graph mode has no flush: rotate over enough input sets to exceed 2x L2."""
    if bytes_per_set <= 0 or l2_bytes <= 0:
        return 1
    return max(1, min(MAX_INPUT_SETS, math.ceil(2.0 * l2_bytes / bytes_per_set) + 1))


def work_outside_timed_stream(host_us, event_us):
    return host_us > HOST_OVER_EVENT_LIMIT * event_us + HOST_ALLOWANCE_US


def _bare_calls(call, sets, count, first=0):
    """Calls call(i % sets) for i in [first, first + count), keeping no result alive (as an
    eager caller would not: held outputs would change what the allocator hands the next call)."""
    for i in range(first, first + count):
        call(i % sets)


def _pilot_us_per_call(enqueue, iterations):
    """Host time per call of enqueue(first, count), from up to ITERATIONS_PER_SPIN calls behind a
    spin of PILOT_SPIN_US_PER_CALL each (timing.cpp's PilotUsPerCall)."""
    calls = min(iterations, ITERATIONS_PER_SPIN)
    spin_us = min(SPIN_CAP_US, calls * PILOT_SPIN_US_PER_CALL)
    return behind_spin(spin_us, lambda: enqueue(0, calls)) / calls


def retry_lead_us(lead_us, attempt):
    """host_ahead.h's RetryLeadUs: the spin of attempt `attempt` (from 0) at a chunk."""
    return min(lead_us * 2.0 ** attempt, SPIN_CAP_US)


def _bare_range(call, sets):
    """_bare_calls as enqueue(first, count), the form the pilot takes."""
    return lambda first, count: _bare_calls(call, sets, count, first)


def host_fell_behind(call_enqueued_us, gpu_reached_us, spin_us):
    """host_ahead.h's HostFellBehindProblem: "" when every call of a chunk was enqueued (host time
    from just before the chunk's spin, to the call's return) no later than the GPU reached its
    start event (GPU time from the spin's start); else the problem, naming the first late call."""
    for i, (enqueued, reached) in enumerate(zip(call_enqueued_us, gpu_reached_us)):
        if enqueued > reached:
            problem = (f"the host fell behind the GPU: timed call {i + 1} of "
                       f"{len(call_enqueued_us)} was enqueued {enqueued:.1f} us after the chunk's "
                       f"{spin_us:.1f} us spin began, but the GPU reached its start event at "
                       f"{reached:.1f} us, so the GPU may have waited for the host inside the "
                       "timed call")
            # The spin is sized from the pilot's host time: a first call that returns only after
            # the whole spin ran waited for the GPU (Liger's cross entropy on the H200).
            if i == 0 and enqueued > spin_us:
                problem += ("; the call returned only after the GPU had run the whole spin, so it "
                            "waits for the GPU (a .item(), .cpu() or synchronize inside it) and "
                            "its GPU time cannot be told apart from that wait")
            return problem
    return ""


def _time_eager(call, sets, iterations):
    """Per call: flush L2 (not timed), event, call, event; in chunks, each enqueued behind a spin
    sized from the pilot; then every call checked against the GPU's clock (host_fell_behind)."""
    flush = l2_flush()
    starts, stops = events(iterations), events(iterations)
    spin_began = events(1)[0]
    enqueued_us = [0.0] * iterations
    origin = [time.perf_counter()]

    def enqueue_iterations(first, count):
        for i in range(first, first + count):
            flush()
            starts[i].record()
            call(i % sets)
            enqueued_us[i] = 1e6 * (time.perf_counter() - origin[0])
            stops[i].record()

    per_iteration = _pilot_us_per_call(enqueue_iterations, iterations)
    host_per_call = _pilot_us_per_call(_bare_range(call, sets), iterations)
    cycles_per_us()  # a first calibration must not run inside a chunk
    for first in range(0, iterations, ITERATIONS_PER_SPIN):
        count = min(ITERATIONS_PER_SPIN, iterations - first)
        lead_us = min(SPIN_CAP_US, SPIN_MARGIN * count * per_iteration + SPIN_SLACK_US)
        for attempt in range(CHUNK_ATTEMPTS):
            spin_us = retry_lead_us(lead_us, attempt)
            with gc_paused():
                origin[0] = time.perf_counter()  # before the GPU's origin: late calls never hide
                spin_began.record()
                spin(spin_us)
                enqueue_iterations(first, count)
            torch.cuda.synchronize()
            reached = [elapsed_us(spin_began, starts[i]) for i in range(first, first + count)]
            problem = host_fell_behind(enqueued_us[first:first + count], reached, spin_us)
            if not problem:
                break  # this attempt's samples stand
        if problem:
            return [], host_per_call, problem
    samples = [elapsed_us(s, e) for s, e in zip(starts, stops)]
    return samples, host_per_call, ""


def _time_graph(call, sets, iterations):
    """Captures `iterations` calls (no flush: the sets rotate past L2) and times replays."""
    current = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    side.wait_stream(current)
    with torch.cuda.stream(side):  # warm-up on a side stream, as torch's graph docs ask
        _bare_calls(call, sets, min(3, iterations))
    current.wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            _bare_calls(call, sets, iterations)
    except Exception as e:  # noqa: BLE001 - any capture failure is the finding
        with contextlib.suppress(Exception):
            torch.cuda.synchronize()
        return [], f"not capturable in a CUDA graph: {describe_exception(e)}"
    graph.replay()  # the first replay uploads the graph
    torch.cuda.synchronize()
    starts, stops = events(GRAPH_REPLAYS), events(GRAPH_REPLAYS)
    for start, stop in zip(starts, stops):
        start.record()
        graph.replay()
        stop.record()
    torch.cuda.synchronize()
    return [elapsed_us(s, e) / iterations for s, e in zip(starts, stops)], ""


def _consistency_problem(call, sets, iterations):
    """Back-to-back calls timed by one event pair and by the host clock around a device-wide
    synchronize (timing.cpp's TimeConsistency): much more host time means another stream."""
    start, stop = events(2)
    torch.cuda.synchronize()
    with gc_paused():
        began = time.perf_counter()
        start.record()
        _bare_calls(call, sets, iterations)
        stop.record()
        torch.cuda.synchronize()
        host_us = 1e6 * (time.perf_counter() - began)
    event_us = elapsed_us(start, stop)
    if not work_outside_timed_stream(host_us, event_us):
        return ""
    return (f"work outside the timed stream: the host clock saw {host_us:.0f} us of GPU work for "
            f"{iterations} back-to-back calls but the events on the current stream only "
            f"{event_us:.0f} us: work runs on another stream (launch on "
            "torch.cuda.current_stream())")


def time_calls(call, input_sets=1, warmup=10, iterations=100, graph=False, cap_long_calls=False):
    """Times call(set_index) on the current CUDA device; never raises for the callable's own
    errors: they become the Timing's problem. With cap_long_calls (eager only) the warm-up is
    timed by an event pair and long calls are timed fewer times, as timing.cpp does."""
    try:
        start, stop = events(2)
        start.record()
        _bare_calls(call, input_sets, warmup)
        stop.record()
        torch.cuda.synchronize()
        if cap_long_calls and not graph and warmup > 0:
            iterations = iterations_within_budget(iterations, elapsed_us(start, stop) / warmup)
        if graph:
            samples, problem = _time_graph(call, input_sets, iterations)
            host_per_call = _pilot_us_per_call(_bare_range(call, input_sets), iterations)
        else:
            samples, host_per_call, problem = _time_eager(call, input_sets, iterations)
        if not problem:
            problem = _consistency_problem(call, input_sets, iterations)
    except Exception as e:  # noqa: BLE001 - reported as the case's problem
        return Timing(problem=f"raised: {describe_exception(e)}")
    return summarize(samples, host_per_call, problem)
