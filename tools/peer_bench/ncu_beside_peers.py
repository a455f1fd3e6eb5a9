#!/usr/bin/env python3
"""Our op and each of its peers (torch.compile, Liger, ...) once inside an NVTX range, for
Nsight Compute to profile side by side: the counters that say why a peer's kernel is faster
(DRAM throughput, occupancy, launch shape, stalls), which timings alone cannot.

Takes the peer job `kbuild bench` wrote (build/bench-results/peers-job-*.json; run the bench
with --filter so the job holds only the cases to look at) and runs, per case: every
implementation warmed up (torch.compile compiles then), then each called once inside the range
"kbuild_ncu". Run it under ncu:

  ncu --nvtx --nvtx-include kbuild_ncu/ --section SpeedOfLight --section LaunchStats \\
      --section Occupancy python3 ncu_beside_peers.py --job JOB.json

With TORCH_LOGS=output_code, inductor prints the Triton source it generated (block sizes, warps).
stderr names each implementation before its profiled call, so ncu's kernels map to them.
"""

import argparse
import dataclasses
import os
import sys

HARNESS_PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness",
                              "python")
sys.path.insert(0, HARNESS_PYTHON)

import torch  # noqa: E402

from peer_job import JobError, read_job  # noqa: E402
from peer_run import case_seed  # noqa: E402
from peer_text import describe_exception  # noqa: E402
from peer_values import as_arguments  # noqa: E402
from peer_worker import WorkerError, prepare  # noqa: E402
from peers_file import PeersFileError, load_peers_file  # noqa: E402

RANGE = "kbuild_ncu"
WARMUP_CALLS = 3


def implementations(entry, ops):
    """(name, call) for ours and every peer whose factory works."""
    found = [("ours", lambda *args: entry.ours(ops, *args))]
    for name, factory in entry.peers.items():
        try:
            found.append((name, factory()))
        except Exception as e:  # noqa: BLE001 - not installed: say so, profile the rest
            print(f"ncu_beside_peers: {name}: not available: {describe_exception(e)}",
                  file=sys.stderr)
    return found


def profile_case(case, entry, ops):
    torch.manual_seed(case_seed(case))
    args = as_arguments(entry.inputs(case))
    for name, call in implementations(entry, ops):
        for _ in range(WARMUP_CALLS):
            call(*args)
        torch.cuda.synchronize()
        print(f"ncu_beside_peers: {case.benchmark}/{case.name}: {name}", file=sys.stderr,
              flush=True)
        torch.cuda.nvtx.range_push(RANGE)
        call(*args)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job", required=True, help="the peer job kbuild bench wrote")
    args = parser.parse_args(argv)
    try:
        job = read_job(args.job)
        ops = prepare(job)
        entries = load_peers_file(job.peers_file)
    except (JobError, PeersFileError, WorkerError) as e:
        print(f"ncu_beside_peers: {e}", file=sys.stderr)
        return 1
    for case in job.cases:
        entry = entries.get(case.benchmark)
        if entry is None:
            print(f"ncu_beside_peers: no peers for {case.benchmark}", file=sys.stderr)
            continue
        profile_case(dataclasses.replace(case, device="cuda"), entry, ops)
    return 0


if __name__ == "__main__":
    sys.exit(main())
