#!/usr/bin/env bash
# Everything on a GPU machine in one go: build kbuild, scaffold + check + build every template, load
# each variant in this machine's Python and call its op on the GPU, run `kbuild test` and `kbuild bench`
# for every template, the harness self-test (deliberately wrong kernels, and a crashing and a hanging
# kernel that kbuild test must isolate), and the peer benchmark.
# Logs go to $WORK/logs and, packed, to $OUT/gpu-logs.tar.gz (with summary.tsv and the peer tables
# beside it in $OUT, default ./gpu-out); a short summary table is printed last.
# Usage: tools/scripts/gpu-run.sh [--quick | --checks | --benches | --build-only | --rmsnorm |
#                                  --peers-only]
#   --quick: skip the peer benchmark; --checks: also skip the template benchmarks except a few
#   small rmsnorm cases (flushed, --graph, --compare), to prove correctness and harness features in
#   one short run; --benches: the template benchmarks without `kbuild test` and the wrong-kernel
#   self-tests (the run after a --checks run of the same tree); --peers-only: only the peer
#   benchmark, on the projects an earlier run of this script left in $KBUILD_GPU_WORK (default
#   /tmp/kbuild-gpu); --build-only: build, load and call every template, nothing else (the set-up
#   for a --peers-only call when the peer wheels need two transfers); --rmsnorm: the rmsnorm
#   template only (build, test, bench, harness features), the launch-shape sweep and its ncu
#   counters, for a kernel change. One call of the GPU machine holds about one of these modes.
# Extra kernel projects (e.g. one written from the skill alone) are built, tested and benchmarked
# too when listed in GPU_RUN_PROJECTS (space-separated directories).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FINAL_OUT="${OUT:-$ROOT/gpu-out}"; mkdir -p "$FINAL_OUT"
WORK="${KBUILD_GPU_WORK:-/tmp/kbuild-gpu}"; mkdir -p "$WORK"
OUT="$WORK/logs"; rm -rf "$OUT"; mkdir -p "$OUT"
QUICK=0; PEERS_ONLY=0; CHECKS=0; TESTS=1; BUILD_ONLY=0; SELFTESTS=1; ONLY_TEMPLATE=
case "${1:-}" in
  --quick) QUICK=1 ;;
  --checks) QUICK=1; CHECKS=1 ;;
  --benches) QUICK=1; TESTS=0 ;;
  --build-only) QUICK=1; TESTS=0; CHECKS=1; BUILD_ONLY=1 ;;
  --rmsnorm) QUICK=1; SELFTESTS=0; ONLY_TEMPLATE=rmsnorm ;;
  --peers-only) PEERS_ONLY=1 ;;
  "") ;;
  *) echo "usage: $0 [--quick | --checks | --benches | --build-only | --rmsnorm | --peers-only]" >&2
     exit 2 ;;
esac
SUMMARY="$OUT/summary.tsv"; : > "$SUMMARY"
export PYTHONUNBUFFERED=1 KBUILD_HOME="$ROOT" KBUILD_CACHE_DIR="$WORK/cache"

# step NAME LOGFILE CMD...: runs CMD, logs it, records status and seconds in the summary.
step() {
  local name="$1" log="$OUT/$2"; shift 2
  local t0=$SECONDS
  echo "== $name" | tee -a "$log"
  "$@" >>"$log" 2>&1
  local rc=$?
  printf '%s\t%s\t%ss\t%s\n' "$name" "$([[ $rc == 0 ]] && echo ok || echo "FAIL($rc)")" \
    "$((SECONDS - t0))" "logs/$(basename "$log")" >> "$SUMMARY"
  return $rc
}

{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -2; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# Stash whatever peer wheels (or wheel chunks) this transfer carried: a later --peers-only call on
# the same machine finds them here (tools/peer_bench/README.md).
WHEELS="$WORK/wheels"; mkdir -p "$WHEELS"
cp "$ROOT"/.whl*/*.whl "$ROOT"/.whl*/*.part.* "$WHEELS"/ 2>/dev/null

if [[ $PEERS_ONLY == 0 ]]; then
BUILD="$WORK/kbuild-build"
step "build kbuild" kbuild-build.log \
  bash -c "cmake -S '$ROOT' -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBUILD_BUILD_TESTS=OFF && cmake --build '$BUILD'"
KBUILD="$BUILD/tools/kbuild/kbuild"
if [[ ! -x "$KBUILD" && -x "$ROOT/.deps/bin/kbuild" ]]; then
  KBUILD="$ROOT/.deps/bin/kbuild"; echo "using the kbuild binary built on the developer machine"
fi
export PATH="$(dirname "$KBUILD"):$PATH"

step "doctor" doctor.log kbuild doctor
kbuild doctor --json > "$OUT/doctor.json" 2>/dev/null

for tdir in "$ROOT"/templates/*/; do
  t="$(basename "$tdir")"; [[ -f "$tdir/template.toml" ]] || continue
  [[ -n "$ONLY_TEMPLATE" && "$t" != "$ONLY_TEMPLATE" ]] && continue
  proj="$WORK/proj-$t"; rm -rf "$proj"
  name="${t//_/-}-demo"
  step "$t: init+check+build" "$t.log" bash -c \
    "kbuild init '$name' --template '$t' --dir '$proj' && kbuild -C '$proj' check && kbuild -C '$proj' build" || continue
  step "$t: load+call (python)" "$t.log" python3 "$ROOT/tools/scripts/smoke_call.py" "$t" "$proj"
  [[ $TESTS == 1 ]] && step "$t: kbuild test" "$t.log" kbuild -C "$proj" test
  if [[ $CHECKS == 0 ]]; then
    step "$t: kbuild bench" "$t.log" kbuild -C "$proj" bench
    cp "$proj/results/latest.md" "$OUT/bench-$t.md" 2>/dev/null
    cp "$proj/results/latest.json" "$OUT/bench-$t.json" 2>/dev/null
    cp "$proj/results/latest.svg" "$OUT/bench-$t.svg" 2>/dev/null
  fi
done

if [[ $BUILD_ONLY == 0 ]]; then
# Harness features on a real template: memcheck on one test, and the small rmsnorm cases timed
# flushed, then as CUDA-graph replays, then compared with the flushed run.
proj="$WORK/proj-rmsnorm"
if [[ -d "$proj/build" ]]; then
  step "rmsnorm: kbuild test --sanitize memcheck" rmsnorm-harness.log \
    kbuild -C "$proj" test --sanitize memcheck --filter 'RmsNorm.WeightOfInputDtype'
  small='rms_norm/(1|128|512)x4096 bf16'
  step "rmsnorm: kbuild bench (small cases)" rmsnorm-harness.log \
    kbuild -C "$proj" bench --filter "$small"
  cp "$proj/results/latest.json" "$WORK/small-baseline.json"
  step "rmsnorm: kbuild bench --graph (small cases)" rmsnorm-harness.log \
    kbuild -C "$proj" bench --graph --filter "$small"
  step "rmsnorm: kbuild bench --compare (small cases)" rmsnorm-harness.log \
    kbuild -C "$proj" bench --filter "$small" --compare "$WORK/small-baseline.json"
fi

# Launch-shape sweep of the rmsnorm kernel (tools/peer_bench/rmsnorm_launch_sweep.cu).
step "rmsnorm launch-shape sweep" sweep.log bash -c \
  "nvcc -O3 -std=c++17 -arch=sm_90a -I '$ROOT/templates/rmsnorm/{{python_name}}_cuda' \
     '$ROOT/tools/peer_bench/rmsnorm_launch_sweep.cu' -o '$WORK/sweep' && '$WORK/sweep'"
# Hardware counters for one mid-size shape (DRAM throughput, warps resident), every configuration.
if [[ -n "$ONLY_TEMPLATE" ]] && command -v ncu >/dev/null; then
  step "rmsnorm sweep under ncu (2048x4096)" ncu.log bash -c \
    "ncu --clock-control none --kernel-name regex:'RmsNorm(Register|Persistent)Kernel' --csv \
       --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size \
       '$WORK/sweep' 2048x4096 > '$OUT/ncu-2048x4096.csv'"
fi

for proj in ${GPU_RUN_PROJECTS:-}; do
  [[ -f "$proj/build.toml" ]] || { echo "GPU_RUN_PROJECTS: no build.toml in $proj"; continue; }
  name="$(basename "$proj")"; copy="$WORK/extra-$name"; rm -rf "$copy"; cp -r "$proj" "$copy"
  step "$name: check+build" "extra-$name.log" bash -c "kbuild -C '$copy' check && kbuild -C '$copy' build" || continue
  step "$name: kbuild test" "extra-$name.log" kbuild -C "$copy" test
  step "$name: kbuild bench" "extra-$name.log" kbuild -C "$copy" bench
  cp "$copy/results/latest.md" "$OUT/bench-$name.md" 2>/dev/null
done

fi  # BUILD_ONLY

if [[ $SELFTESTS == 0 ]]; then :
elif [[ -d "$ROOT/tools/harness/bad_kernels" && $CHECKS == 0 && $TESTS == 1 ]]; then
  step "harness self-test (wrong kernels)" harness-selftest.log \
    bash "$ROOT/tools/harness/bad_kernels/run.sh" "$WORK/bad-kernels"
fi

if [[ $TESTS == 1 && $SELFTESTS == 1 ]]; then
  step "harness self-test: kbuild test on the wrong kernels" harness-selftest.log \
    kbuild -C "$ROOT/tools/harness/bad_kernels" test
  # A faulting and an endless kernel must fail only their own tests (exit 1, the CUDA error,
  # "timed out after 20 s") while kbuild survives and a later test still passes.
  step "harness self-test: kbuild test isolates crash + hang" harness-selftest.log \
    bash "$ROOT/tools/harness/bad_kernels/isolation.sh" kbuild
fi
  [[ $BUILD_ONLY == 0 && $SELFTESTS == 1 ]] && step "harness self-test: kbuild test --sanitize reports findings" \
    harness-selftest.log bash "$ROOT/tools/harness/bad_kernels/sanitize.sh" kbuild
fi  # PEERS_ONLY

if [[ $QUICK == 0 && -f "$ROOT/tools/peer_bench/rmsnorm_peers.py" ]]; then
  # Peer wheels travel in .whl/ (or split over .whl-a/ and .whl-b/ to fit the transfer limit;
  # a wheel too large for one transfer travels as <name>.part.* chunks joined here).
  for first in "$WHEELS"/*.part.aa; do
    base="${first%.part.aa}"
    [[ -e "$first" && -e "$base.part.ab" ]] || continue   # join once every chunk has arrived
    cat "$base".part.* > "$base" && rm -f "$base".part.*
  done
  ls "$WHEELS" > "$OUT/wheels.log"
  if ls "$WHEELS"/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site "$WHEELS"/*.whl >> "$OUT/wheels.log" 2>&1
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
    # .pth files (the CuTe DSL puts its `cutlass` package on sys.path through one) are read only
    # in site directories, not on PYTHONPATH: add the folder they name.
    [[ -d /tmp/site/nvidia_cutlass_dsl/dsl_packages ]] && \
      export PYTHONPATH="/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PYTHONPATH"
  fi
  step "peer benchmark (rmsnorm)" peers.log \
    python3 -X faulthandler "$ROOT/tools/peer_bench/rmsnorm_peers.py" "$WORK/proj-rmsnorm" \
      --fused "$WORK/proj-fused_add_rmsnorm" --head "$WORK/proj-head_rmsnorm" \
      --json "$OUT/peers.json" ${PEER_ARGS:-}
  cp "$OUT/peers.log" "$OUT/peers.md"
fi

for extra in ${GPU_RUN_EXTRA:-}; do [[ -f "$extra" ]] && cp "$extra" "$OUT/"; done
tar -czf "$FINAL_OUT/gpu-logs.tar.gz" -C "$WORK" logs
cp "$SUMMARY" "$OUT"/peers.md "$OUT"/peers.json "$FINAL_OUT"/ 2>/dev/null
echo; echo "== summary"
# column(1) is not on every machine: align with awk.
awk -F'\t' '{ printf "%-52s %-10s %6s  %s\n", $1, $2, $3, $4 }' "$SUMMARY"
