#!/usr/bin/env bash
# Measures how long `kbuild build` takes on the blank template: a cold build of a
# fresh project (compiler cache off), a rebuild after touching the .cu (the
# edit-compile loop of kernel work), a rebuild after touching the torch binding,
# and a no-op rebuild. Prints the seconds and appends one row to
# results/build-times.md with the date and the machine. Not a test: numbers
# depend on the machine and its load.
#
# Usage: tools/scripts/measure-build-times.sh [results-file]
#   KBUILD_BIN     the kbuild binary (default: _build/tools/kbuild/kbuild)
#   KBUILD_PYTHON  the python with torch (default: .venv/bin/python)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KBUILD="${KBUILD_BIN:-$ROOT/_build/tools/kbuild/kbuild}"
RESULTS="${1:-$ROOT/results/build-times.md}"
export KBUILD_PYTHON="${KBUILD_PYTHON:-$ROOT/.venv/bin/python}"
# A warm compiler cache would turn the cold build into a cache replay.
export CCACHE_DISABLE=1

if [[ ! -x "$KBUILD" ]]; then
  echo "measure-build-times: no kbuild at $KBUILD (run tools/scripts/build-kbuild.sh or set KBUILD_BIN)" >&2
  exit 4
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PROJECT="$WORK/timing-op"
"$KBUILD" init timing-op --dir "$PROJECT" >/dev/null

# Seconds (3 decimals) one `kbuild build` takes; stops the script on a failed build.
timed_build() {
  local start end
  start=$EPOCHREALTIME
  if ! "$KBUILD" -C "$PROJECT" build >"$WORK/build.out" 2>&1; then
    echo "measure-build-times: kbuild build failed:" >&2
    cat "$WORK/build.out" >&2
    exit 3
  fi
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}

cold=$(timed_build)
touch "$PROJECT/timing_op_cuda/scale_add.cu"
touch_cu=$(timed_build)
touch "$PROJECT/torch-ext/torch_binding.cpp"
touch_binding=$(timed_build)
noop=$(timed_build)

date_utc="$(date -u +%Y-%m-%dT%H:%MZ)"
cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
machine="$(hostname), $(nproc) cores ($cpu), load $(cut -d' ' -f1 /proc/loadavg)"
nvcc="$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")"
nvcc_version="$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/\1/p' || true)"
torch_version="$("$KBUILD_PYTHON" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo unknown)"

printf 'cold build:             %s s\n' "$cold"
printf 'after touching the .cu: %s s\n' "$touch_cu"
printf 'after touching binding: %s s\n' "$touch_binding"
printf 'no-op rebuild:          %s s\n' "$noop"

if [[ ! -f "$RESULTS" ]]; then
  mkdir -p "$(dirname "$RESULTS")"
  cat >"$RESULTS" <<'HEADER'
# kbuild build times (blank template)

Measured by `tools/scripts/measure-build-times.sh`: wall-clock seconds of `kbuild build`
for a fresh `kbuild init` project with the compiler cache off. "touch .cu" is the kernel
edit loop (one CUDA file recompiles, then the link); "touch binding" recompiles the
torch binding (torch/library.h + ATen). Load is the 1-minute load average when done.

| date (UTC) | machine | nvcc | torch | cold | touch .cu | touch binding | no-op |
|---|---|---|---|---|---|---|---|
HEADER
fi
printf '| %s | %s | %s | %s | %s s | %s s | %s s | %s s |\n' "$date_utc" "$machine" \
  "${nvcc_version:-unknown}" "$torch_version" "$cold" "$touch_cu" "$touch_binding" "$noop" >>"$RESULTS"
echo "measure-build-times: appended to $RESULTS"
