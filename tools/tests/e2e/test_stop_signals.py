"""SIGTERM and Ctrl-C (SIGINT) during `kbuild build`: the whole child process tree ends,
kbuild exits 143 / 130 (with --json, one document), and the next build is not blocked.
A fake `cmake` on PATH stands for the long build: it starts a background grandchild and waits."""

import json
import os
import signal
import subprocess
import time

import pytest

from e2e_support import init_project

FAKE_CMAKE = """#!/bin/sh
echo $$ > "{marks}/cmake.pid"
sleep 300 &
echo $! > "{marks}/sleep.pid"
wait
"""


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def wait_for(path, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared: the fake cmake did not start")


@pytest.fixture
def fake_cmake_env(base_env, tmp_path):
    bin_dir = tmp_path / "fake-bin"
    marks = tmp_path / "marks"
    bin_dir.mkdir()
    marks.mkdir()
    cmake = bin_dir / "cmake"
    cmake.write_text(FAKE_CMAKE.format(marks=marks))
    cmake.chmod(0o755)
    env = dict(base_env)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return env, marks


@pytest.mark.parametrize("sig, code, json_flag", [
    (signal.SIGTERM, 143, []),
    (signal.SIGINT, 130, ["--json"]),
])
def test_signal_ends_the_child_tree_and_the_next_build_runs(
        kbuild, kbuild_bin, fake_cmake_env, tmp_path, sig, code, json_flag):
    env, marks = fake_cmake_env
    project = init_project(kbuild, "blank", tmp_path)
    run = subprocess.Popen([str(kbuild_bin), "-C", str(project), "build", *json_flag], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        cmake_pid = wait_for(marks / "cmake.pid")
        sleep_pid = wait_for(marks / "sleep.pid")
        run.send_signal(sig)
        stdout, stderr = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == code, f"{stdout}\n{stderr}"
    time.sleep(0.5)
    assert not alive(cmake_pid) and not alive(sleep_pid), "a child outlived kbuild"
    if json_flag:
        doc = json.loads(stdout)
        assert doc["exit_code"] == code and doc["command"] == "build"
        assert doc["error"]["message"].startswith("stopped by SIGINT")
    else:
        assert "stopped by SIGTERM" in stderr

    # The lock went with the stopped run: the next build starts and reaches cmake again
    # (a fake one that fails at once, so the test does not wait for a real build).
    fail_bin = tmp_path / "fail-bin"
    fail_bin.mkdir()
    (fail_bin / "cmake").write_text("#!/bin/sh\necho configure failed\nexit 1\n")
    (fail_bin / "cmake").chmod(0o755)
    fail_env = dict(env)
    fail_env["PATH"] = f"{fail_bin}:{env['PATH']}"
    again = kbuild("-C", project, "build", "--json", env=fail_env, timeout=120)
    assert again.returncode == 3, again.stdout
    assert json.loads(again.stdout)["exit_code"] == 3
