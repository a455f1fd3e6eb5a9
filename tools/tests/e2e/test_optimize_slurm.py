"""kbuild optimize --backend slurm on a real one-node Slurm cluster (Debian's slurmctld, slurmd
and munge, two fake GPUs: tools/tests/slurm/one_node_cluster.sh), no GPU: the array's workers run
a fake child kbuild (fakes/child_kbuild.py) through --worker-kbuild. One task is cancelled while
it holds a candidate and the controller is restarted mid-run: the other task finishes the run
with nothing lost or counted twice. A run stopped by SIGTERM is resumed to the end."""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from e2e_support import init_project

HERE = Path(__file__).resolve().parent
CLUSTER = HERE.parent / "slurm" / "one_node_cluster.sh"
FAKE_CHILD = HERE / "fakes" / "child_kbuild.py"
LEASE = 10


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    missing = [p for p in ("slurmctld", "slurmd", "munged", "sbatch") if not shutil.which(p)]
    if missing:
        pytest.skip(f"no Slurm here ({', '.join(missing)} not on PATH): tools/scripts/"
                    "install-deps.sh --test installs slurmctld, slurmd, slurm-client and munge")
    if os.geteuid() != 0:
        pytest.skip("the one-node Slurm cluster runs its daemons as root")
    folder = Path("/tmp") / f"kbuild-slurm-{os.getpid()}"  # short: munge's socket path
    started = subprocess.run(["bash", str(CLUSTER), "start", str(folder)], text=True,
                             capture_output=True, timeout=120)
    assert started.returncode == 0, started.stdout + started.stderr
    yield folder
    subprocess.run(["bash", str(CLUSTER), "stop", str(folder)], timeout=120)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def slurm_env(kbuild, cluster, tmp_path):
    """kbuild's environment with SLURM_CONF; the jobs inherit it (sbatch exports all)."""
    return dict(kbuild.env, SLURM_CONF=str(cluster / "slurm.conf"),
                FAKE_HANG_MARKER=str(tmp_path / "hanging"))


@pytest.fixture
def worker_kbuild(kbuild, tmp_path):
    """What the array tasks run: the real kbuild worker, its children the fake."""
    wrapper = tmp_path / "worker-kbuild.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{kbuild.binary}" "$@" --child-kbuild "{FAKE_CHILD}" '
                       "--idle-exit 120\n")
    wrapper.chmod(0o755)
    return wrapper


def optimize(kbuild, project, env, worker_kbuild, *extra):
    return subprocess.Popen(
        [str(kbuild.binary), "-C", str(project), "optimize", "--proposer", "builtin", "--backend",
         "slurm", "--partition", "ci", "--jobs", "2", "--islands", "2", "--lease", str(LEASE),
         "--worker-kbuild", str(worker_kbuild), "--json", *extra],
        env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(predicate, what, timeout=90):
    until = time.time() + timeout
    while time.time() < until:
        if predicate():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def queue_of(project, run):
    found = []

    def submitted():
        if run.poll() is not None:
            out, err = run.communicate()
            raise AssertionError(f"kbuild optimize ended (exit {run.returncode}):\n{out}\n{err}")
        found.extend(project.glob("results/optimize-*/queue/slurm-job.txt"))
        return found

    wait_for(submitted, "the Slurm array's job id")
    return found[0].parent


def squeue(env, job):
    out = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%i %T"], env=env, text=True,
                         capture_output=True).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


def history_ids(run_dir):
    path = run_dir / "history.jsonl"
    if not path.exists():
        return []
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


def test_a_cancelled_task_and_a_restarted_controller_lose_nothing(kbuild, cluster, slurm_env,
                                                                  worker_kbuild, tmp_path):
    project = init_project(kbuild, "rmsnorm", tmp_path)
    run = optimize(kbuild, project, slurm_env, worker_kbuild, "--budget", "4")
    queue = queue_of(project, run)
    job = (queue / "slurm-job.txt").read_text().strip()
    marker = Path(slurm_env["FAKE_HANG_MARKER"])
    wait_for(lambda: marker.exists() and marker.read_text() != "", "a task to hang in its test")
    task = marker.read_text().strip()
    held = [p.name for p in (queue / "claimed").glob(f"*.slurm-{job}-{task}.json")]
    assert len(held) == 1, sorted(p.name for p in (queue / "claimed").iterdir())
    held_id = held[0].split(".")[0]
    subprocess.run(["scancel", f"{job}_{task}"], env=slurm_env, check=True)
    restarted = subprocess.run(["bash", str(CLUSTER), "restart-controller", str(cluster)],
                               text=True, capture_output=True, timeout=120)
    assert restarted.returncode == 0, restarted.stderr
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, f"{out}\n{err}"
    summary = json.loads(out)
    assert summary["slurm_job"] == job
    assert [a["verdict"] for a in summary["attempts"]] == ["ok"] * 5, summary["attempts"]
    done = json.loads((queue / "done" / f"{held_id}.json").read_text())
    assert done["worker"] != f"slurm-{job}-{task}"  # finished by the other task after the lease
    assert len(list((queue / "done").iterdir())) == 5
    assert history_ids(queue.parent) == ["baseline", "a0001", "a0002", "a0003", "a0004"]
    assert (queue / "stop").exists()
    wait_for(lambda: not squeue(slurm_env, job), "the array to leave the queue", timeout=60)


def test_a_run_stopped_by_sigterm_resumes_to_the_end(kbuild, slurm_env, worker_kbuild, tmp_path):
    slurm_env = dict(slurm_env)
    slurm_env.pop("FAKE_HANG_MARKER")
    project = init_project(kbuild, "rmsnorm", tmp_path)
    run = optimize(kbuild, project, slurm_env, worker_kbuild, "--budget", "4")
    queue = queue_of(project, run)
    wait_for(lambda: len(history_ids(queue.parent)) >= 2, "two recorded attempts")
    run.send_signal(signal.SIGTERM)
    run.communicate(timeout=120)
    assert run.returncode == 143
    recorded = history_ids(queue.parent)
    resumed = optimize(kbuild, project, slurm_env, worker_kbuild, "--budget", "4", "--resume",
                       str(queue.parent.relative_to(project)))
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, f"{out}\n{err}"
    ids = history_ids(queue.parent)
    assert ids[:len(recorded)] == recorded
    assert ids == ["baseline", "a0001", "a0002", "a0003", "a0004"]
    assert [a["verdict"] for a in json.loads(out)["attempts"]] == ["ok"] * 5
