#!/usr/bin/env bash
# The main job on the bundled default: scaffold the RMSNorm template, check it, build it into a
# Kernel Hub variant, then run its correctness tests and benchmarks. Installs what it needs first.
# Without a GPU, test and bench are skipped with the reason (everything else still runs).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
"$ROOT/tools/scripts/install-deps.sh"
echo "run-default: building kbuild (CMake/Ninja progress follows; the first build takes minutes)"
"$ROOT/tools/scripts/build-kbuild.sh" >/dev/null  # progress is on stderr
export PATH="$ROOT/_build/tools/kbuild:$ROOT/.venv/bin:$PATH"

DEMO="${KBUILD_DEMO_DIR:-$ROOT/_demo/rmsnorm-demo}"
mkdir -p "$(dirname "$DEMO")"
set -x
kbuild doctor --no-bench
kbuild init rmsnorm-demo --template rmsnorm --dir "$DEMO" --force
kbuild -C "$DEMO" check
kbuild -C "$DEMO" build
set +x
if kbuild doctor --json --no-bench 2>/dev/null | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin).get("gpus") else 1)'; then
  set -x
  kbuild -C "$DEMO" test
  kbuild -C "$DEMO" bench
else
  echo "run-default: skipped 'kbuild test' and 'kbuild bench': no GPU on this machine (they run on the GPU machine: tools/scripts/gpu-run.sh)"
fi
