"""tools/scripts/build-kbuild.sh shows CMake's and Ninja's progress on stderr while it builds
(run-default.sh keeps its stdout quiet), and prints only the binary's path on stdout.
A fake `cmake` on PATH stands for the real, minutes-long build."""

import os
import subprocess

from e2e_support import REPO_ROOT

FAKE_CMAKE = """#!/bin/sh
if [ "$1" = "--build" ]; then
  echo "[1/2] Building CXX object main.cpp.o"
  echo "[2/2] Linking CXX executable kbuild"
else
  echo "-- Configuring done"
  touch "$4/build.ninja"
fi
"""


def test_progress_goes_to_stderr_and_the_path_to_stdout(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cmake").write_text(FAKE_CMAKE)
    (bin_dir / "cmake").chmod(0o755)
    build = tmp_path / "build"
    build.mkdir()
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", KBUILD_BUILD_DIR=str(build))
    result = subprocess.run([str(REPO_ROOT / "tools/scripts/build-kbuild.sh")], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"build-kbuild: {build}/tools/kbuild/kbuild\n"
    assert "configuring" in result.stderr
    assert "-- Configuring done" in result.stderr
    assert "[1/2] Building CXX object main.cpp.o" in result.stderr
