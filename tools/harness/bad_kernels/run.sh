#!/usr/bin/env bash
# On a GPU machine: builds the harness with the deliberately wrong kernels against this machine's
# torch, then proves the harness rejects each one (bad_kernels_tests passes only when every wrong
# op fails for the expected reason) and that the benchmark side rejects side-stream work and
# reports copy bandwidth. Usage: run.sh BUILD_DIR
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${1:?usage: run.sh BUILD_DIR}"
TORCH_DIR="${KBUILD_TORCH_DIR:-$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')}"
cmake -S "$HERE/.." -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBUILD_HARNESS_BAD_KERNELS=ON \
  -DKBUILD_TORCH_DIR="$TORCH_DIR" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" >/dev/null
cmake --build "$BUILD" --target bad_kernels_tests bad_kernels_bench
echo "== bad_kernels_tests (each wrong kernel must be rejected for its reason)"
KBUILD_TEST_JSON="$BUILD/bad_kernels_tests.jsonl" timeout 600 "$BUILD/bad_kernels/bad_kernels_tests"
echo "== bad_kernels_bench (copy bandwidth through the harness; the side-stream case must fail)"
set +e
KBUILD_BENCH_JSON="$BUILD/bad_kernels_bench.json" timeout 300 "$BUILD/bad_kernels/bad_kernels_bench"
echo "bench exit code: $? (1 expected: the side-stream case is rejected)"
python3 - "$BUILD/bad_kernels_bench.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print(f"peak copy bandwidth: {doc['peak']}")
for c in doc["cases"]:
    print(f"{c['benchmark']:28s} {c['case']:24s} {c['verdict']:10s} "
          f"{c.get('gbps', 0):8.1f} GB/s {c.get('percent_of_peak', 0):6.1f}%  {c.get('problems', '')}")
PY
