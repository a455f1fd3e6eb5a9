"""kbuild tune --backend slurm on the real one-node Slurm cluster (conftest.py's `cluster`), no
GPU: the array's two workers run a fake child kbuild (fakes/child_kbuild.py) through
--worker-kbuild. One task is cancelled while it holds the defaults: the other takes them after
the lease and finishes the variants and the finalist, with nothing lost or counted twice. A run
stopped by SIGTERM is resumed to the end without queueing an item twice. With --build-partition
the run submits a build array and a gpu array: the first compiles every variant, the second only
tests and benchmarks them, and both end with the run."""

import json
import subprocess
from pathlib import Path

from e2e_support import init_project
from queue_support import (LEASE, array_queue_of, assert_the_array_ends, history, history_ids,
                           stop_by_sigterm, wait_for)


def tune(kbuild, project, env, worker_kbuild, *extra, budget=3, jobs=2):
    return subprocess.Popen(
        [str(kbuild.binary), "-C", str(project), "tune", "--backend", "slurm", "--partition",
         "ci", "--jobs", str(jobs), "--lease", str(LEASE), "--worker-kbuild", str(worker_kbuild),
         "--budget", str(budget), "--full-tests", "1", "--json", *extra],
        env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_cancelled_task_holding_the_defaults_loses_nothing(kbuild, slurm_env, worker_kbuild,
                                                             tmp_path):
    project = init_project(kbuild, "rmsnorm", tmp_path)
    run = tune(kbuild, project, slurm_env, worker_kbuild)
    queue = array_queue_of(project, run, "tune")
    job = (queue / "slurm-job.txt").read_text().strip()
    marker = Path(slurm_env["FAKE_HANG_MARKER"])
    wait_for(lambda: marker.exists() and marker.read_text() != "", "a task to hang in its test")
    task = marker.read_text().strip()
    held = [p.name for p in (queue / "claimed").iterdir()]
    assert held == [f"defaults.slurm-{job}-{task}.json"], held
    subprocess.run(["scancel", f"{job}_{task}"], env=slurm_env, check=True)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, f"{out}\n{err}"
    summary = json.loads(out)
    assert summary["backend"] == "slurm" and summary["slurm_job"] == job
    assert summary["counts"]["evaluated"] == 4 and summary["counts"]["invalid"] == 0, summary
    assert summary["counts"]["finalists_tested_now"] == 1
    defaults = json.loads((queue / "done" / "defaults.json").read_text())
    assert defaults["worker"] != f"slurm-{job}-{task}"  # finished by the other task
    ids = history_ids(queue.parent)
    assert ids[0] == "defaults" and len(set(ids)) == 4 and len(ids) == 5, ids
    assert len(list((queue / "done").iterdir())) == 5  # four evaluations, one finalist
    assert (queue.parent / "tuned_config.h").is_file()
    assert_the_array_ends(queue, slurm_env, job)


def test_a_run_stopped_by_sigterm_resumes_to_the_end(kbuild, slurm_env, worker_kbuild, tmp_path):
    slurm_env = dict(slurm_env)
    slurm_env.pop("FAKE_HANG_MARKER")
    project = init_project(kbuild, "rmsnorm", tmp_path)
    run = tune(kbuild, project, slurm_env, worker_kbuild, budget=6)
    queue = array_queue_of(project, run, "tune")
    out, recorded = stop_by_sigterm(run, queue, recorded=2)
    assert json.loads(out)["stopped"] is True
    resumed = tune(kbuild, project, slurm_env, worker_kbuild, "--resume",
                   str(queue.parent.relative_to(project)), budget=6)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, f"{out}\n{err}"
    summary = json.loads(out)
    assert summary["counts"]["evaluated"] == 7 and summary["counts"]["invalid"] == 0, summary
    ids = history_ids(queue.parent)
    assert ids[:len(recorded)] == recorded
    assert len(set(ids)) == 7 and len(ids) == 8, ids  # + the finalist's line
    done = sorted(p.name for p in (queue / "done").iterdir())  # one record per item
    assert done == sorted({f"{i}.json" for i in ids} | {f"{ids[-1]}-full.json"}), done


def test_a_build_partition_runs_a_build_array_and_a_gpu_array(kbuild, slurm_env, worker_kbuild,
                                                              tmp_path):
    steps = tmp_path / "steps.log"
    slurm_env = dict(slurm_env, FAKE_STEP_LOG=str(steps),
                     FAKE_FAIL_DEFINE="RMSNORM_GROUP_WARPS=4")
    slurm_env.pop("FAKE_HANG_MARKER")
    project = init_project(kbuild, "rmsnorm", tmp_path)
    # One task per array: the node has as many CPUs as this machine (2), and a gpu task waiting
    # for built items must not keep the build task from starting.
    run = tune(kbuild, project, slurm_env, worker_kbuild, "--build-partition", "ci",
               "--build-time", "0:30:00", jobs=1)
    queue = array_queue_of(project, run, "tune")
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, f"{out}\n{err}"
    summary = json.loads(out)
    build_job, gpu_job = summary["slurm_build_job"], summary["slurm_job"]
    assert build_job != gpu_job
    assert (queue / "slurm-build-job.txt").read_text().strip() == build_job
    assert " --role build " in (queue / "worker-build.sbatch").read_text()
    assert " --role gpu " in (queue / "worker.sbatch").read_text()
    # The variant whose build fails counts as evaluated and invalid.
    assert summary["counts"]["evaluated"] == 4 and summary["counts"]["invalid"] == 1, summary
    failed = [r for r in history(queue.parent) if r["stage"] == "build-failed"]
    assert len(failed) == 1 and failed[0]["params"]["RMSNORM_GROUP_WARPS"] == "4", failed
    by_job = {}
    for line in steps.read_text().splitlines():
        job, step = line.split(" ", 1)
        by_job.setdefault(job, []).append(step)
    assert set(by_job) == {build_job, gpu_job}, by_job
    assert by_job[build_job].count("build") == 5  # the defaults, three variants, the finalist
    assert set(by_job[build_job]) == {"build", "test --build-only", "bench --build-only"}
    assert by_job[gpu_job] == ["test", "bench"] * 3 + ["test"], by_job[gpu_job]
    assert_the_array_ends(queue, slurm_env, build_job)
    assert_the_array_ends(queue, slurm_env, gpu_job)
