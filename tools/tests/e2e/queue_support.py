"""Helpers for the end-to-end tests of queued runs (`kbuild optimize|tune --backend queue|slurm`
with real `kbuild worker` processes whose child kbuild is fakes/child_kbuild.py); the one-node
Slurm cluster's fixtures are in conftest.py."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAKE_CHILD = HERE / "fakes" / "child_kbuild.py"
CLUSTER = HERE.parent / "slurm" / "one_node_cluster.sh"
LEASE = 10  # seconds: the shortest --lease allows


def wait_for(predicate, what, timeout=90):
    until = time.time() + timeout
    while time.time() < until:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def queue_of(project, command, timeout=60):
    """The queue/ folder of the project's `kbuild <command>` run, once it wrote its config."""
    found = []

    def written():
        found.extend(project.glob(f"results/{command}-*/queue/config.json"))
        return found

    wait_for(written, f"kbuild {command} to write queue/config.json", timeout)
    return found[0].parent


def array_queue_of(project, run, command):
    """The queue/ folder of a `--backend slurm` run, once it has submitted its worker array;
    fails at once if the run ends first."""
    found = []

    def submitted():
        if run.poll() is not None:
            out, err = run.communicate()
            raise AssertionError(f"kbuild {command} ended (exit {run.returncode}):\n{out}\n{err}")
        found.extend(project.glob(f"results/{command}-*/queue/slurm-job.txt"))
        return found

    wait_for(submitted, "the Slurm array's job id")
    return found[0].parent


def start_worker(kbuild, queue, name, env_extra=None, *extra):
    """`kbuild worker` with the fake child; `extra` arguments (e.g. --role build) follow."""
    env = dict(kbuild.env, **(env_extra or {}))
    return subprocess.Popen(
        [str(kbuild.binary), "worker", "--queue", str(queue), "--name", name, "--child-kbuild",
         str(FAKE_CHILD), "--idle-exit", "60", "--json", *extra],
        env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True)  # its own group: killing it kills its child kbuild too


def finish(process, timeout=180):
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def history(run_dir):
    """The records of the run's history.jsonl ([] before it has one)."""
    path = run_dir / "history.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def history_ids(run_dir):
    return [record["id"] for record in history(run_dir)]


def squeue(env, job):
    """(task id, state) of the array's tasks still in Slurm's queue."""
    out = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%i %T"], env=env, text=True,
                         capture_output=True).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


def kill_a_worker_holding(kbuild, queue, held_id, marker):
    """Starts worker `doomed`, whose child hangs in its first test (FAKE_HANG_MARKER=marker),
    SIGKILLs it while it holds `held_id` (a node that dies: no result, no more heartbeats) and
    starts worker `rescuer`; returns the rescuer and the time it started."""
    doomed = start_worker(kbuild, queue, "doomed", {"FAKE_HANG_MARKER": str(marker)})
    wait_for(marker.exists, "the first worker to reach its hanging test", timeout=60)
    held = [p.name for p in (queue / "claimed").iterdir()]
    assert held == [f"{held_id}.doomed.json"], held
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.wait()
    return start_worker(kbuild, queue, "rescuer"), time.time()


def stop_by_sigterm(run, queue, recorded):
    """SIGTERM to the run once its history holds `recorded` lines; exit 143 checked. Its
    stdout and the ids recorded."""
    wait_for(lambda: len(history_ids(queue.parent)) >= recorded, f"{recorded} recorded items")
    run.send_signal(signal.SIGTERM)
    out, _ = run.communicate(timeout=120)
    assert run.returncode == 143
    return out, history_ids(queue.parent)


def assert_the_array_ends(queue, env, job):
    """The run wrote queue/stop and its array leaves Slurm's queue."""
    assert (queue / "stop").exists()
    wait_for(lambda: not squeue(env, job), "the array to leave the queue", timeout=60)
