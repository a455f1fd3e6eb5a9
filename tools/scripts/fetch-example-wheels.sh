#!/usr/bin/env bash
# Downloads what the end-to-end examples (examples/) need on the offline GPU machine (Python
# 3.12) beyond what it has (DEVICE.md: torch, transformers 5.17, triton, numpy): diffusers, the
# `kernels` package and the few dependencies of theirs it lacks, into .whl-ex/ (about 15 MB,
# one device transfer: carry it with GPU_RUN_EXAMPLES, see gpu-run.sh). Nothing already there is
# replaced: the wheels are installed without their dependencies into a folder ahead on the path.
# Idempotent: present wheels are not downloaded again.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$ROOT/.venv/bin/python3}"
mkdir -p .whl-ex
echo "fetch-example-wheels: downloading into .whl-ex/" >&2
"$PY" -m pip download -q -d .whl-ex --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --abi cp312 --platform manylinux_2_28_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
  diffusers==0.42.1 kernels==0.17.2 importlib-metadata zipp pillow
du -sh .whl-ex >&2
