#!/usr/bin/env bash
# The whole test suite (what CI runs): kbuild's unit tests (GoogleTest via CTest), the harness's CPU
# tests, the end-to-end tests that run the real kbuild binary (pytest), and the peer benchmark's CPU
# tests (tools/peer_bench: its pure parts, and the SASS check of the templates), and the CPU tests of
# kbuild optimize's GPU acceptance kit (tools/optimize_acceptance). Installs what it
# needs first.
# Tests that need a GPU skip with the reason; they run on the GPU machine (tools/scripts/gpu-run.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
"$ROOT/tools/scripts/install-deps.sh" --test
"$ROOT/tools/scripts/build-kbuild.sh"
export KBUILD_BIN="$ROOT/_build/tools/kbuild/kbuild"

echo "== unit tests (ctest)"
ctest --test-dir "$ROOT/_build" --output-on-failure -j2

echo "== end-to-end, peer-worker and peer-benchmark tests (pytest)"
cd "$ROOT"
"$ROOT/.venv/bin/python3" -m pytest -q -rs tools/tests tools/harness/python tools/peer_bench \
  tools/optimize_acceptance tools/scale_out
