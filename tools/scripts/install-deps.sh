#!/usr/bin/env bash
# Installs everything kbuild needs on a fresh Debian machine with the CUDA Toolkit, idempotently:
# Debian packages (compilers, CMake, Ninja, TOML++, CLI11, nlohmann-json, fmt, GoogleTest, Google
# Benchmark, ccache) and a project-local Python virtual environment (.venv) with tools/requirements.txt.
# Safe to run again: it only installs what is missing. With --test also what only the test suite
# needs: Slurm's daemons and munge, for the one-node cluster of tools/tests/slurm.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

APT_PACKAGES=(build-essential cmake ninja-build ccache git python3 python3-venv
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev googletest libbenchmark-dev)
if [[ "${1:-}" == --test ]]; then
  APT_PACKAGES+=(slurmctld slurmd slurm-client munge)
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--test]" >&2
  exit 2
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: apt-get install ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]]; then
  echo "install-deps: error: no nvcc on PATH and none in \${CUDA_HOME:-/usr/local/cuda}/bin" >&2
  echo "hint: install the CUDA Toolkit (13.0) or set CUDA_HOME" >&2
  exit 4
fi

VENV="$ROOT/.venv"
if [[ ! -x "$VENV/bin/python3" ]]; then
  echo "install-deps: creating $VENV"
  python3 -m venv "$VENV"
fi
# Skip pip entirely when every pinned requirement is already satisfied (fast re-runs).
if ! "$VENV/bin/python3" - "$ROOT/tools/requirements.txt" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, _, pin = line.partition("==")
    try:
        v = version(name)
    except PackageNotFoundError:
        sys.exit(1)
    if pin and v.split("+")[0] != pin:
        sys.exit(1)
PY
then
  echo "install-deps: pip install -r tools/requirements.txt (torch is large: a few minutes)"
  "$VENV/bin/python3" -m pip install -q --upgrade pip >/dev/null
  "$VENV/bin/python3" -m pip install -q -r "$ROOT/tools/requirements.txt"
fi
echo "install-deps: ok"
