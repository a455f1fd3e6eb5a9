#!/usr/bin/env python3
"""Stands in for the child `kbuild build / test / bench / profile --json` a queue worker runs
(kbuild worker --child-kbuild), on an optimize candidate or a tune variant (`build`, then `test
--build-only` and `bench --build-only`, `test` with or without --filter, `bench`), so a whole
queued run goes without a GPU: it prints the document kbuild would, with a benchmark time that
falls with RMSNORM_VECS (8, the default, is slowest).
With FAKE_HANG_MARKER set, the first `test` it runs (a tune variant's: `test --build-only`)
creates that file, writes the Slurm array task it runs in (if any) into it, and then hangs (a
worker to kill mid-evaluation).
With FAKE_HANG_PID set as well, the hanging child writes its process id there (renamed into
place when whole), so a test can kill the child alone: a worker whose GPU step dies.
With FAKE_FAIL_DEFINE=NAME=VALUE, `build` with that --define fails as a compile error does
(exit 3, the error's file, line and message in the document).
With FAKE_STEP_LOG set, each run appends its step to that file, one line ("build", "test
--build-only", "bench", ...; in a Slurm array task, "<array job id> build", ...), so a test sees
which steps each worker ran."""

import json
import os
import sys
import time

args = sys.argv[1:]
step = next(a for a in args if a in ("build", "test", "bench", "profile"))
defines = dict(a.split("=", 1) for a in args[args.index(step):]
               if "=" in a and not a.startswith("-"))
step_log = os.environ.get("FAKE_STEP_LOG")
if step_log:
    with open(step_log, "a") as f:
        job = os.environ.get("SLURM_ARRAY_JOB_ID")
        f.write((f"{job} " if job else "") + step +
                (" --build-only" if "--build-only" in args else "") + "\n")
marker = os.environ.get("FAKE_HANG_MARKER")
if marker and step == "test" and not os.path.exists(marker):
    with open(marker, "w") as f:
        f.write(os.environ.get("SLURM_ARRAY_TASK_ID", ""))
    pid_file = os.environ.get("FAKE_HANG_PID")
    if pid_file:
        with open(pid_file + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(pid_file + ".tmp", pid_file)
    time.sleep(3600)
fail = os.environ.get("FAKE_FAIL_DEFINE", "")
if step == "build" and fail in (f"{name}={value}" for name, value in defines.items()):
    error = {"message": f"static assertion failed: {fail} is not supported", "exit_code": 3,
             "path": "e2e_op_cuda/rms_norm_tuning.h", "line": 7, "column": 1}
    print(json.dumps({"command": "build", "ok": False, "exit_code": 3, "error": error}))
    sys.exit(3)
doc = {"command": step, "ok": True, "seconds": 0.01}
if "--build-only" in args:
    doc.update({"build_only": True, "compiled": 1})
elif step == "test":
    doc["summary"] = {"passed": 5, "failed": 0}
elif step == "bench":
    vecs = float(defines.get("RMSNORM_VECS", "8"))
    doc["harness"] = {"cases": [{"benchmark": "rms_norm", "case": "2048x4096 bf16",
                                 "time_us": {"median": 10.0 + vecs}, "bytes": 3.3e7}]}
print(json.dumps(doc))
