#!/usr/bin/env python3
"""Stands in for the child `kbuild build / test / bench --json` a queue worker runs on each
candidate (kbuild worker --child-kbuild), so a whole queued optimize runs without a GPU: it
prints the document kbuild would, with a benchmark time that falls with RMSNORM_VECS (8, the default, is slowest).
With FAKE_HANG_MARKER set, the first `test` it runs creates that file, writes the Slurm array
task it runs in (if any) into it, and then hangs (a worker to kill mid-evaluation)."""

import json
import os
import sys
import time

args = sys.argv[1:]
step = next(a for a in args if a in ("build", "test", "bench", "profile"))
defines = dict(a.split("=", 1) for a in args[args.index(step):]
               if "=" in a and not a.startswith("-"))
marker = os.environ.get("FAKE_HANG_MARKER")
if marker and step == "test" and not os.path.exists(marker):
    with open(marker, "w") as f:
        f.write(os.environ.get("SLURM_ARRAY_TASK_ID", ""))
    time.sleep(3600)
doc = {"command": step, "ok": True, "seconds": 0.01}
if step == "test":
    doc["summary"] = {"passed": 5, "failed": 0}
if step == "bench":
    vecs = float(defines.get("RMSNORM_VECS", "8"))
    doc["harness"] = {"cases": [{"benchmark": "rms_norm", "case": "2048x4096 bf16",
                                 "time_us": {"median": 10.0 + vecs}, "bytes": 3.3e7}]}
print(json.dumps(doc))
