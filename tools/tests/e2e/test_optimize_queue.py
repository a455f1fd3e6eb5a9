"""kbuild optimize --backend queue with real `kbuild worker` processes, no GPU: the workers'
child kbuild is fakes/child_kbuild.py. One worker evaluates every attempt once; a worker
killed mid-evaluation loses its claim after the lease and another worker finishes the run,
with nothing lost or counted twice; a worker whose child is killed (its GPU step died) ends with
exit 4 rather than blame the candidate, and its claim goes the same way."""

import json
import os
import signal
import subprocess
import time

import pytest

from e2e_support import init_project
from queue_support import (LEASE, finish, history, kill_a_worker_holding, queue_of,
                           start_worker, wait_for)


def start_optimize(kbuild, project, budget):
    return subprocess.Popen(
        [str(kbuild.binary), "-C", str(project), "optimize", "--proposer", "builtin",
         "--backend", "queue", "--budget", str(budget), "--islands", "1", "--lease", str(LEASE),
         "--json"],
        env=kbuild.env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def project(kbuild, tmp_path):
    return init_project(kbuild, "rmsnorm", tmp_path)


def test_one_worker_evaluates_every_attempt_once_and_ends_with_the_run(kbuild, project):
    run = start_optimize(kbuild, project, budget=3)
    queue = queue_of(project, "optimize")
    worker = start_worker(kbuild, queue, "w0")
    rc, out, err = finish(run)
    assert rc == 0, f"{out}\n{err}"
    summary = json.loads(out)
    assert summary["backend"] == "queue"
    assert summary["counts"]["attempts"] == 3
    throughput = summary["throughput"]
    assert throughput["judged_now"] == 3 and throughput["workers"] == 1, throughput  # no baseline
    assert throughput["per_minute"] == pytest.approx(3 * 60 / throughput["seconds"])
    assert all(a["verdict"] == "ok" for a in summary["attempts"]), summary["attempts"]
    assert summary["best"]["score"] > 1.0  # the fake's time falls with RMSNORM_VECS
    wrc, wout, werr = finish(worker)
    assert wrc == 0, werr
    worker_doc = json.loads(wout)
    assert worker_doc["evaluated"] == 4  # the baseline and three attempts
    assert worker_doc["ended"].startswith("stop requested")
    done = sorted(p.name for p in (queue / "done").iterdir())
    assert done == ["a0001.json", "a0002.json", "a0003.json", "baseline.json"]
    assert not list((queue / "pending").iterdir()) and not list((queue / "claimed").iterdir())
    run_dir = queue.parent
    assert [a["id"] for a in history(run_dir)] == ["baseline", "a0001", "a0002", "a0003"]
    assert (run_dir / "attempts" / "a0001" / "logs" / "bench.log").is_file()


def test_a_killed_workers_claim_goes_to_another_worker_after_the_lease(kbuild, project,
                                                                       tmp_path):
    run = start_optimize(kbuild, project, budget=2)
    queue = queue_of(project, "optimize")
    rescuer, started = kill_a_worker_holding(kbuild, queue, "baseline", tmp_path / "hanging")
    rc, out, err = finish(run)
    assert rc == 0, f"{out}\n{err}"
    assert time.time() - started >= LEASE - 4  # waited for the lease, as it must
    summary = json.loads(out)
    assert [a["verdict"] for a in summary["attempts"]] == ["ok"] * 3, summary["attempts"]
    wrc, wout, werr = finish(rescuer)
    assert wrc == 0, werr
    assert json.loads(wout)["evaluated"] == 3
    baseline = json.loads((queue / "done" / "baseline.json").read_text())
    assert baseline["worker"] == "rescuer"
    assert [a["id"] for a in history(queue.parent)] == ["baseline", "a0001", "a0002"]
    assert not list((queue / "claimed").iterdir())


def test_a_worker_whose_child_is_killed_ends_and_another_judges_its_claim(kbuild, project,
                                                                           tmp_path):
    run = start_optimize(kbuild, project, budget=1)
    queue = queue_of(project, "optimize")
    pid_file = tmp_path / "child.pid"
    failing = start_worker(kbuild, queue, "failing", {"FAKE_HANG_MARKER": str(tmp_path / "hang"),
                                                      "FAKE_HANG_PID": str(pid_file)})
    wait_for(pid_file.exists, "the worker's test child to start hanging", timeout=60)
    os.kill(int(pid_file.read_text()), signal.SIGKILL)  # the child alone, not the worker
    wrc, wout, werr = finish(failing)
    assert wrc == 4, f"{wout}\n{werr}"
    error = json.loads(wout)["error"]
    assert error["message"] == ("this worker failed while judging baseline: kbuild test was "
                                "killed by signal 9"), error
    assert [p.name for p in (queue / "claimed").iterdir()] == ["baseline.failing.json"]
    rescuer = start_worker(kbuild, queue, "rescuer")
    rc, out, err = finish(run)
    assert rc == 0, f"{out}\n{err}"
    summary = json.loads(out)
    assert [a["verdict"] for a in summary["attempts"]] == ["ok", "ok"], summary["attempts"]
    assert finish(rescuer)[0] == 0
    baseline = json.loads((queue / "done" / "baseline.json").read_text())
    assert baseline["worker"] == "rescuer"
    assert [a["id"] for a in history(queue.parent)] == ["baseline", "a0001"]
