#!/usr/bin/env python3
"""kbuild's peer worker: times a project's Python baselines ("peers": torch.compile, Liger,
QuACK, ...) against the project's own op, on the GPU, by the rules of the C++ harness.

kbuild bench runs it after the benchmark binary, with the project root as the working folder:
  python3 peer_worker.py --job JOB.json --out OUT.json
JOB names benchmarks/peers.py, the built op library, the cases and the timing options; OUT gets,
per case, our op's and each peer's time, host time per call, speedup and value-check verdict.
Formats and rules: tools/harness/python/README.md.
"""

import argparse
import os
import sys
import traceback

sys.dont_write_bytecode = True  # run from kbuild's data folder, which may be read-only

import torch  # noqa: E402

from gpu_clock import l2_cache_bytes  # noqa: E402
from peer_job import JobError, read_job  # noqa: E402
from peer_results import SCHEMA, write_document  # noqa: E402
from peer_run import progress, run_cases  # noqa: E402
from peer_text import describe_exception  # noqa: E402
from peer_timing import time_calls  # noqa: E402
from peers_file import PeersFileError, load_peers_file  # noqa: E402

# torch.compile recompiles per shape; past these limits it silently runs the function eagerly,
# which would time eager PyTorch under the name torch.compile.
COMPILE_LIMITS = ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                  "accumulated_cache_size_limit")
COMPILE_LIMIT = 1 << 16

EPILOG = """\
exit status:
  0  OUT was written (peers that are unavailable or failed are reported inside it)
  1  the worker could not run: bad JOB, peers.py does not import or is malformed, no CUDA
     device, the project library does not load (one line on stderr says why)
  2  bad command line

progress goes to stderr, one line per case and implementation:
  peers: rms_norm/2048x4096 bf16: torch.compile
"""


class WorkerError(Exception):
    """The worker cannot run; the message is one line."""


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="peer_worker.py", description=__doc__,
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job", required=True, metavar="JOB.json",
                        help="the job kbuild wrote (schema kbuild-peer-job/1)")
    parser.add_argument("--out", required=True, metavar="OUT.json",
                        help="where to write the results (schema kbuild-peer-results/1); "
                             "written through a temporary file and a rename")
    return parser.parse_args(argv)


def raise_compile_limits(config):
    """Sets every recompile/cache size limit this torch has to COMPILE_LIMIT."""
    raised = []
    for name in COMPILE_LIMITS:
        if hasattr(config, name):
            setattr(config, name, max(getattr(config, name), COMPILE_LIMIT))
            raised.append(name)
    return raised


def project_ops(job):
    """Loads the project library; torch.ops.<namespace> (aten when none is named)."""
    if job.project_library:
        if not os.path.isfile(job.project_library):
            raise WorkerError(f"the project library {job.project_library} does not exist "
                              "(run kbuild build first)")
        try:
            torch.ops.load_library(job.project_library)
        except Exception as e:  # noqa: BLE001 - a missing symbol, a torch mismatch, ...
            raise WorkerError(f"cannot load the project library {job.project_library}: "
                              f"{describe_exception(e)}") from None
    return getattr(torch.ops, job.namespace or "aten")


def prepare(job):
    if not torch.cuda.is_available():
        raise WorkerError(f"torch {torch.__version__} sees no CUDA device "
                          "(torch.cuda.is_available() is False)")
    import torch._dynamo.config as dynamo_config

    raise_compile_limits(dynamo_config)
    return project_ops(job)


def run(args):
    job = read_job(args.job)
    ops = prepare(job)
    entries = load_peers_file(job.peers_file)
    body = run_cases(job, entries, ops, time_calls, l2_bytes=l2_cache_bytes())
    doc = {"schema": SCHEMA, "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "mode": "graph+rotate" if job.graph else "events+l2flush"}
    doc.update(body)
    write_document(args.out, doc)
    progress(f"peers: wrote {args.out}")


def main(argv=None):
    args = parse_args(argv)
    try:
        run(args)
    except (JobError, PeersFileError, WorkerError) as e:
        print(f"peer_worker: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug here: the trace, then the one-line reason
        traceback.print_exc()
        print(f"peer_worker: internal error: {describe_exception(e)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
