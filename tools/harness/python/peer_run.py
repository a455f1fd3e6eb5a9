"""The worker's loop over the job's cases: per case, our op and then each peer are checked
against the reference and, when correct, timed on the same input sets."""

import dataclasses
import sys
import zlib

import torch

from peer_results import make_result, ours_json, peer_json
from peer_text import describe_exception
from peer_timing import input_set_count, summarize
from peer_values import as_arguments, check_values


def progress(line):
    print(line, file=sys.stderr, flush=True)


class PeerAvailability:
    """Whether each peer's factory worked. A factory that raised is not called again for later
    cases of that benchmark; a peer that works for one benchmark and not for another is
    available, and each benchmark where it failed is reported as a problem."""

    def __init__(self):
        self.worked = {}  # name -> benchmarks where the factory returned a callable
        self.failed = {}  # name -> {benchmark: reason}

    def failed_before(self, benchmark, name):
        return benchmark in self.failed.get(name, {})

    def record(self, benchmark, name, reason=""):
        self.worked.setdefault(name, set())
        self.failed.setdefault(name, {})
        if reason:
            self.failed[name].setdefault(benchmark, reason)
        else:
            self.worked[name].add(benchmark)

    def peers_json(self):
        return [{"name": name, "available": bool(worked),
                 "reason": "" if worked else next(iter(self.failed[name].values()))}
                for name, worked in self.worked.items()]

    def problems(self):
        return [f"peer '{name}' is not available for benchmark '{benchmark}': {reason}"
                for name, failures in self.failed.items() if self.worked[name]
                for benchmark, reason in failures.items()]


def case_seed(case):
    """The same inputs for a case on every run, whatever the other cases are."""
    return zlib.crc32(f"{case.benchmark}/{case.name}".encode())


class CaseRun:
    """One case: builds its inputs, checks and times our op and each peer."""

    def __init__(self, job, case, entry, timer, l2_bytes):
        self.job, self.case, self.entry, self.timer = job, case, entry, timer
        self.set_count = input_set_count(case.bytes, l2_bytes) if job.graph else 1
        self.sets = None

    def inputs(self, seed):
        torch.manual_seed(seed)
        return as_arguments(self.entry.inputs(self.case))

    def timed_sets(self):
        """The input sets every implementation of the case is timed on (built once)."""
        if self.sets is None:
            seed = case_seed(self.case)
            self.sets = [self.inputs(seed + 1 + i) for i in range(self.set_count)]
        return self.sets

    def measure(self, call):
        """Value check first; only a correct implementation is timed."""
        case, job = self.case, self.job
        check = check_values(call, lambda: self.inputs(case_seed(case)), self.entry.reference,
                             case.atol, case.rtol)
        timing = None
        if not check.problem and not case.correctness_only:
            try:
                sets = self.timed_sets()
            except Exception as e:  # noqa: BLE001 - the user's make_inputs
                return make_result(f"make_inputs raised: {describe_exception(e)}", 0.0, None,
                                   0.0, 0.0)
            timing = self.timer(lambda i: call(*sets[i]), len(sets), job.warmup,
                                job.iterations, job.graph, job.cap_long_calls)
        return make_result(check.problem, check.max_abs_error, timing, case.bytes, job.peak_gbps,
                           job.dram_gbps)


def run_case(run, ops, availability, log):
    case, entry = run.case, run.entry
    label = f"peers: {case.benchmark}/{case.name}"
    log(f"{label}: ours")
    ours = run.measure(lambda *args: entry.ours(ops, *args))
    peers = []
    for name, factory in entry.peers.items():
        if availability.failed_before(case.benchmark, name):
            continue
        log(f"{label}: {name}")
        try:
            call = factory()  # once per case: torch.compile compiles for this shape
            if not callable(call):
                raise TypeError(f"the factory returned {type(call).__name__}, not a callable")
        except Exception as e:  # noqa: BLE001 - not installed, wrong version, ...
            availability.record(case.benchmark, name, describe_exception(e))
            log(f"{label}: {name}: not available: {describe_exception(e)}")
            continue
        availability.record(case.benchmark, name)
        try:
            result = run.measure(call)
        except Exception as e:  # noqa: BLE001 - the peer's failure is its own problem
            result = make_result(f"raised: {describe_exception(e)}", 0.0, None, 0.0, 0.0)
        peers.append((name, result))
    if peers and not ours.problem and ours.timing.samples_us:
        # Ours again after the peers, both runs pooled: whatever drifts over the case (clocks,
        # caches, the allocator) weighs on ours as on the peers timed in between.
        log(f"{label}: ours again")
        ours = pooled(run, ours, run.measure(lambda *args: entry.ours(ops, *args)))
    return {"benchmark": case.benchmark, "case": case.name, "ours": ours_json(ours),
            "peers": [peer_json(name, result, ours) for name, result in peers]}


def pooled(run, first, second):
    """One result from two timings of the same implementation: the samples pooled, the host
    time averaged; a problem of the second run stands."""
    if second.problem or not second.timing.samples_us:
        return second
    timing = summarize(first.timing.samples_us + second.timing.samples_us,
                       (first.timing.host_us_per_call + second.timing.host_us_per_call) / 2)
    return make_result("", max(first.max_abs_error, second.max_abs_error), timing,
                       run.case.bytes, run.job.peak_gbps, run.job.dram_gbps)


def run_cases(job, entries, ops, timer, l2_bytes=0, device="cuda", log=progress):
    """The OUT document's "peers", "records" and "problems" for the job."""
    availability, records, problems = PeerAvailability(), [], []
    for case in job.cases:
        entry = entries.get(case.benchmark)
        if entry is None:
            problem = (f"peers.py has no entry for benchmark '{case.benchmark}': "
                       "its cases have no peers")
            if problem not in problems:
                problems.append(problem)
            continue
        case = dataclasses.replace(case, device=device)
        run = CaseRun(job, case, entry, timer, l2_bytes)
        records.append(run_case(run, ops, availability, log))
        del run  # frees the case's input sets before the next case
    return {"peers": availability.peers_json(), "records": records,
            "problems": problems + availability.problems()}
