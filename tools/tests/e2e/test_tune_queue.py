"""kbuild tune --backend queue with real `kbuild worker` processes, no GPU: the workers' child
kbuild is fakes/child_kbuild.py. One worker evaluates the defaults, every variant and the
finalists once, a failed build included, and the run ranks them as a local one would; a worker
killed mid-evaluation loses its claim after the lease and another worker finishes the run,
with nothing lost or counted twice. A build worker and a gpu worker split the same run: the
build worker compiles (a failed build is its result), the gpu worker only tests and
benchmarks what it built. The backend options are checked before anything runs."""

import json
import subprocess
import time

import pytest

from e2e_support import init_project
from queue_support import (LEASE, finish, history, kill_a_worker_holding, queue_of,
                           start_worker)


def start_tune(kbuild, project, *extra):
    return subprocess.Popen(
        [str(kbuild.binary), "-C", str(project), "tune", "--backend", "queue", "--budget", "3",
         "--full-tests", "1", "--lease", str(LEASE), "--json", *extra],
        env=kbuild.env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def project(kbuild, tmp_path):
    return init_project(kbuild, "rmsnorm", tmp_path)


def test_one_worker_evaluates_every_variant_and_finalist_once(kbuild, project):
    run = start_tune(kbuild, project)
    queue = queue_of(project, "tune")
    worker = start_worker(kbuild, queue, "w0", {"FAKE_FAIL_DEFINE": "RMSNORM_GROUP_WARPS=4"})
    rc, out, err = finish(run)
    assert rc == 0, f"{out}\n{err}"
    summary = json.loads(out)
    assert summary["backend"] == "queue"
    assert summary["counts"]["evaluated"] == 4  # the defaults and three variants
    assert summary["counts"]["finalists_tested_now"] == 1
    throughput = summary["throughput"]
    assert throughput["judged_now"] == 3 and throughput["seconds"] > 0, throughput  # no defaults
    assert throughput["per_minute"] == pytest.approx(3 * 60 / throughput["seconds"])
    run_dir = queue.parent
    records = history(run_dir)
    by_id = {r["id"]: r for r in records}  # a finalist's line comes again, tested
    failed = [r for r in by_id.values() if r["stage"] == "build-failed"]
    assert len(failed) == 1, records
    assert failed[0]["params"]["RMSNORM_GROUP_WARPS"] == "4"
    assert failed[0]["reason"] == ("e2e_op_cuda/rms_norm_tuning.h:7:1: static assertion failed: "
                                   "RMSNORM_GROUP_WARPS=4 is not supported")
    assert by_id["defaults"]["tests"] == "full"
    assert sorted(r["stage"] for r in by_id.values()) == ["build-failed", "done", "done", "done"]
    ids = [r["id"] for r in records]
    (finalist,) = {i for i in ids if ids.count(i) == 2}  # its full tests appended it again
    assert by_id[finalist]["tests"] == "full"
    assert sorted(r["id"] for r in summary["ranking"]) == sorted(["defaults", finalist])
    assert (run_dir / "tuned_config.h").is_file() and (run_dir / "summary.md").is_file()
    # The children's documents come back into the run's variants/<id>/; the copy stays on the
    # worker's host.
    assert (run_dir / "variants" / failed[0]["id"] / "build.json").is_file()
    assert (run_dir / "variants" / "defaults" / "bench.json").is_file()
    assert not (run_dir / "variants" / "defaults" / "project").exists()
    wrc, wout, werr = finish(worker)
    assert wrc == 0, werr
    worker_doc = json.loads(wout)
    assert worker_doc["evaluated"] == 5  # the defaults, three variants, one finalist
    assert worker_doc["ended"].startswith("stop requested")
    done = sorted(p.name for p in (queue / "done").iterdir())
    assert done == sorted([f"{i}.json" for i in by_id] + [f"{finalist}-full.json"])
    assert not list((queue / "pending").iterdir()) and not list((queue / "claimed").iterdir())


def test_a_killed_workers_claim_goes_to_another_worker_after_the_lease(kbuild, project,
                                                                       tmp_path):
    run = start_tune(kbuild, project)
    queue = queue_of(project, "tune")
    rescuer, started = kill_a_worker_holding(kbuild, queue, "defaults", tmp_path / "hanging")
    rc, out, err = finish(run)
    assert rc == 0, f"{out}\n{err}"
    assert time.time() - started >= LEASE - 4  # waited for the lease, as it must
    summary = json.loads(out)
    assert summary["counts"]["evaluated"] == 4 and summary["counts"]["invalid"] == 0, summary
    wrc, wout, werr = finish(rescuer)
    assert wrc == 0, werr
    assert json.loads(wout)["evaluated"] == 5
    defaults = json.loads((queue / "done" / "defaults.json").read_text())
    assert defaults["worker"] == "rescuer"
    ids = [r["id"] for r in history(queue.parent)]
    assert ids[0] == "defaults" and len(set(ids)) == 4 and len(ids) == 5  # + one finalist line
    assert not list((queue / "claimed").iterdir())


def steps_of(log):
    return log.read_text().splitlines() if log.exists() else []


def test_a_build_worker_and_a_gpu_worker_split_each_variant(kbuild, project, tmp_path):
    run = start_tune(kbuild, project)
    queue = queue_of(project, "tune")
    stage = str(tmp_path / "stage")
    build_log, gpu_log = tmp_path / "build-steps.log", tmp_path / "gpu-steps.log"
    builder = start_worker(kbuild, queue, "builder",
                           {"FAKE_FAIL_DEFINE": "RMSNORM_GROUP_WARPS=4",
                            "FAKE_STEP_LOG": str(build_log)},
                           "--role", "build", "--stage-dir", stage)
    gpu = start_worker(kbuild, queue, "gpu0", {"FAKE_STEP_LOG": str(gpu_log)},
                       "--role", "gpu", "--stage-dir", stage)
    rc, out, err = finish(run)
    assert rc == 0, f"{out}\n{err}"
    summary = json.loads(out)
    assert summary["counts"]["evaluated"] == 4
    by_id = {r["id"]: r for r in history(queue.parent)}
    failed = [r for r in by_id.values() if r["stage"] == "build-failed"]
    assert len(failed) == 1 and failed[0]["params"]["RMSNORM_GROUP_WARPS"] == "4", by_id
    assert failed[0]["reason"].endswith("RMSNORM_GROUP_WARPS=4 is not supported")
    assert sorted(r["stage"] for r in by_id.values()) == ["build-failed", "done", "done", "done"]
    brc, bout, berr = finish(builder)
    grc, gout, gerr = finish(gpu)
    assert brc == 0 and grc == 0, f"{berr}\n{gerr}"
    # The build worker compiled the defaults, three variants and the finalist's full-test item
    # and ran nothing on a GPU; the gpu worker compiled nothing: it tested and benchmarked the
    # three that built, then ran the finalist's full tests.
    built_steps, gpu_steps = steps_of(build_log), steps_of(gpu_log)
    assert built_steps.count("build") == 5, built_steps
    assert set(built_steps) == {"build", "test --build-only", "bench --build-only"}, built_steps
    assert gpu_steps == ["test", "bench"] * 3 + ["test"], gpu_steps
    builder_doc, gpu_doc = json.loads(bout), json.loads(gout)
    assert builder_doc["role"] == "build" and builder_doc["built"] >= 3, builder_doc
    assert gpu_doc["role"] == "gpu" and gpu_doc["built"] == 0, gpu_doc
    assert not list((queue / "pending").iterdir()) and not list((queue / "claimed").iterdir())


@pytest.mark.parametrize("args, message", [
    (["--partition", "ci"], "--partition is for --backend slurm only"),
    (["--backend", "queue", "--worker-kbuild", "/bin/true"],
     "--worker-kbuild is for --backend slurm only"),
    (["--lease", "30"], "--lease is for --backend queue or slurm only"),
    (["--backend", "slurm", "--slurm-time", "2 hours"],
     "--slurm-time: Slurm's time format (e.g. 2:00:00 or 1-00:00:00)"),
    (["--backend", "queue", "--build-partition", "cpu"],
     "--build-partition is for --backend slurm only"),
    (["--backend", "slurm", "--build-time", "1:00:00"],
     "--build-time is for --build-partition only"),
    (["--backend", "slurm", "--build-partition", "cpu nodes"],
     "--build-partition: letters, digits, _ . - only"),
    (["--backend", "slurm", "--build-partition", "cpu", "--build-time", "1 hour"],
     "--build-time: Slurm's time format (e.g. 2:00:00 or 1-00:00:00)"),
])
def test_backend_options_are_checked_before_anything_runs(kbuild, project, args, message):
    result = kbuild("-C", project, "tune", *args, "--json")
    assert result.returncode == 2, result.stdout + result.stderr
    assert json.loads(result.stdout)["error"]["message"] == message
    assert not (project / "results").exists()
