"""kbuild optimize --backend slurm on a real one-node Slurm cluster (Debian's slurmctld, slurmd
and munge, two fake GPUs: tools/tests/slurm/one_node_cluster.sh, started by conftest.py's
`cluster`), no GPU: the array's workers run a fake child kbuild (fakes/child_kbuild.py) through
--worker-kbuild. One task is cancelled while it holds a candidate and the controller is
restarted mid-run: the other task finishes the run with nothing lost or counted twice. A run
stopped by SIGTERM is resumed to the end."""

import json
import subprocess
from pathlib import Path

from e2e_support import init_project
from queue_support import (CLUSTER, LEASE, array_queue_of, assert_the_array_ends, history_ids,
                           stop_by_sigterm, wait_for)


def optimize(kbuild, project, env, worker_kbuild, *extra):
    return subprocess.Popen(
        [str(kbuild.binary), "-C", str(project), "optimize", "--proposer", "builtin", "--backend",
         "slurm", "--partition", "ci", "--jobs", "2", "--islands", "2", "--lease", str(LEASE),
         "--worker-kbuild", str(worker_kbuild), "--json", *extra],
        env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_cancelled_task_and_a_restarted_controller_lose_nothing(kbuild, cluster, slurm_env,
                                                                  worker_kbuild, tmp_path):
    project = init_project(kbuild, "rmsnorm", tmp_path)
    run = optimize(kbuild, project, slurm_env, worker_kbuild, "--budget", "4")
    queue = array_queue_of(project, run, "optimize")
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
    assert_the_array_ends(queue, slurm_env, job)


def test_a_run_stopped_by_sigterm_resumes_to_the_end(kbuild, slurm_env, worker_kbuild, tmp_path):
    slurm_env = dict(slurm_env)
    slurm_env.pop("FAKE_HANG_MARKER")
    project = init_project(kbuild, "rmsnorm", tmp_path)
    run = optimize(kbuild, project, slurm_env, worker_kbuild, "--budget", "4")
    queue = array_queue_of(project, run, "optimize")
    _, recorded = stop_by_sigterm(run, queue, recorded=2)
    resumed = optimize(kbuild, project, slurm_env, worker_kbuild, "--budget", "4", "--resume",
                       str(queue.parent.relative_to(project)))
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, f"{out}\n{err}"
    ids = history_ids(queue.parent)
    assert ids[:len(recorded)] == recorded
    assert ids == ["baseline", "a0001", "a0002", "a0003", "a0004"]
    assert [a["verdict"] for a in json.loads(out)["attempts"]] == ["ok"] * 5
