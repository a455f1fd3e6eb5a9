"""`--json` is always exactly one JSON document on stdout: for command-line errors, for bytes
that are not UTF-8, and for a project another kbuild is building (exit 6)."""

import fcntl
import json
import os
import subprocess

import pytest

from e2e_support import describe, init_project


def one_document(result):
    """The single JSON document on stdout (json.loads fails on anything before or after it)."""
    return json.loads(result.stdout)


@pytest.mark.parametrize("args, command", [
    (["biuld", "--json"], "kbuild"),
    (["--json"], "kbuild"),
    (["build", "--json", "--no-such-option"], "build"),
    (["test", "--json", "--timeout", "not-a-number"], "test"),
    (["skill", "install", "--json", "--agent", "nobody"], "skill install"),
])
def test_command_line_errors_are_one_json_document(kbuild, tmp_path, args, command):
    result = kbuild(*args, cwd=tmp_path)
    assert result.returncode == 2, describe(result)
    doc = one_document(result)
    assert doc["command"] == command
    assert doc["ok"] is False and doc["exit_code"] == 2
    assert doc["error"]["message"] and doc["error"]["hint"]


def test_unknown_command_in_json_names_the_nearest(kbuild, tmp_path):
    doc = one_document(kbuild("biuld", "--json", cwd=tmp_path))
    assert doc["error"]["message"] == "unknown command 'biuld'"
    assert "build" in doc["error"]["hint"]


def test_invalid_utf8_in_a_path_still_gives_json(kbuild_bin, base_env, tmp_path):
    project = os.path.join(os.fsencode(tmp_path), b"caf\xe9-project")
    os.mkdir(project)
    with open(os.path.join(project, b"build.toml"), "wb") as f:
        f.write(b'[general]\nname = "caf\xe9"\n')
    result = subprocess.run([str(kbuild_bin), "-C", project, "check", "--json"],
                            env=base_env, capture_output=True, timeout=120)
    stdout = result.stdout.decode("utf-8")  # valid UTF-8, else this raises
    doc = json.loads(stdout)
    assert doc["command"] == "check"
    assert doc["exit_code"] == 2
    assert "\ufffd" in json.dumps(doc, ensure_ascii=False)


def test_busy_project_is_exit_6_naming_the_holder(kbuild, tmp_path):
    project = init_project(kbuild, "blank", tmp_path)
    (project / "build").mkdir(exist_ok=True)
    lock = project / "build" / ".kbuild.lock"
    with open(lock, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        holder.write("pid=4242\ncommand=kbuild test\nstarted=2026-12-01T12:01:05\n")
        holder.flush()
        result = kbuild("-C", project, "build", "--json")
        assert result.returncode == 6, describe(result)
        doc = one_document(result)
        assert doc["error"]["message"] == (
            "another kbuild (pid 4242, 'kbuild test', started 12:01:05) is building this project")
        human = kbuild("-C", project, "bench")
        assert human.returncode == 6, describe(human)
        assert "wait for it or stop it" in human.stderr
    # The text only names the holder; the flock is what blocks (released with its holder).
    with open(lock) as stale:
        assert "pid=4242" in stale.read()
