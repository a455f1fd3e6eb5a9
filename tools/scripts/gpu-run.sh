#!/usr/bin/env bash
# Everything on a GPU machine: build kbuild, scaffold + check + build every template, load each
# variant in this machine's Python and call its op on the GPU, `kbuild test` and `kbuild bench` for
# every template, harness features on a real template (--sanitize, --graph, --compare), the
# rmsnorm launch-shape sweep, the harness self-tests (deliberately wrong kernels, a crashing and a
# hanging kernel, sanitizer findings), the pip wheel installed into this machine's torch
# environment (when .dist/ carries one: `pip wheel --no-deps -w .dist .` on the developer
# machine) and the peer benchmark.
# Logs go to $WORK/logs and, packed, to $OUT/gpu-logs.tar.gz (with summary.tsv and the peer tables
# beside it in $OUT, default ./gpu-out); a short summary table is printed last.
#
# Usage: tools/scripts/gpu-run.sh [MODE] [--dry-run]
#   (none)        everything below except ncu
#   --quick       everything except the peer benchmark
#   --checks      correctness and harness features: tests, self-tests, small rmsnorm benches
#   --benches     template benchmarks, harness features, sweep, sanitizer proof (after --checks)
#   --build-only  build, load and call every template; sets up --peers-only when the peer
#                 wheels need two transfers (tools/peer_bench/README.md)
#   --rmsnorm     the rmsnorm template only (test, bench, features), the sweep and its ncu counters,
#                 and ncu's kernel-only times at 1-1024 tokens (ours vs the peers importable here)
#   --peers-only  the peer benchmark and the small-shape ncu probe, on the projects an earlier
#                 run left in $KBUILD_GPU_WORK
#   --trust       what the harness's trust checks need: every template's tests and benchmarks,
#                 the wrong-kernel suite and isolation through kbuild, and the pip wheel
#   --features    the harness features only (--sanitize, flushed / --graph / --compare benches of
#                 small cases) on the rmsnorm template: about two minutes
#   --dry-run     print the steps the mode would run, run nothing
# One call of the GPU machine (10 minutes) holds about one mode. Extra kernel projects (e.g. one
# written from the skill alone) are built, tested and benchmarked too when listed in
# GPU_RUN_PROJECTS (space-separated directories; a skill trial's hidden cases in
# tools/trials/hidden/<folder>/ join its tests). GPU_RUN_TEMPLATES (space-separated template names)
# limits (and orders) the templates a mode builds, tests and benchmarks. Peer wheels stashed by this or an
# earlier call (.whl/, .whl-a/, .whl-b/, .whl-c/) are installed into /tmp/site first, so every
# `kbuild bench` times the peers its project's benchmarks/peers.py lists. GPU_RUN_SMOKE=0 skips
# the Python load+call steps; GPU_RUN_SELFTEST_FILTER passes --filter to the wrong-kernel suite;
# GPU_RUN_SWEEP, GPU_RUN_SELFTESTS (the wrong kernels and isolation), GPU_RUN_WORKER_TESTS
# (the timing's GPU tests: the bench worker's pytest and the C++ host-kept-ahead tests),
# GPU_RUN_TESTS (kbuild test per template), GPU_RUN_FEATURES (--sanitize, --graph, --compare on
# small rmsnorm cases) and GPU_RUN_PROBE (kernels under ncu), each 0 or 1,
# override the mode's choice; GPU_RUN_GRAPH_BENCH=1 adds `kbuild bench --graph` per template
# (ours and the peers as CUDA-graph replays), or to the templates it names ("rmsnorm
# head_rmsnorm"); GPU_RUN_PROBE_SHAPES (e.g. "128x4096 512x4096")
# picks the probe's shapes. GPU_RUN_TEST_FILTERS ("template=PATTERN ...", e.g.
# "rope=Rope.Tiny*") runs only those tests of a template, GPU_RUN_BENCH_FILTERS (the same form,
# e.g. "rope=64x1|ltx") only those cases of its default bench; GPU_RUN_TEST_TEMPLATES and
# GPU_RUN_BENCH_TEMPLATES (names) limit which templates are tested and benchmarked; GPU_RUN_PROFILE=1 adds `kbuild profile` of the rmsnorm
# template and of the deliberately slow copy in tools/harness/bad_kernels. GPU_RUN_TUNE
# ("template:budget[:seconds] ...", e.g. "rmsnorm:24 gemm_fp32:48:560") runs `kbuild tune` on a
# fresh project of each (its shipped kbuild.toml space; the entry's seconds, else
# GPU_RUN_TUNE_TIME, default 480, after which no new variant starts: about 10-12 s of GPU a
# rmsnorm variant on the H200, 32 s a rope one, whose quick tests are longer; the defaults'
# and the finalists' full suites come on top, 2-3 minutes each for rope) and keeps its
# summary, heatmap, dispatch header and history.
# GPU_RUN_SCALE_OUT=1 runs tools/scale_out/run.sh (tune and optimize on one GPU and on all).
# GPU_RUN_OPTIMIZE (scripted, builtin, or 1 for both) runs kbuild optimize's acceptance
# (tools/optimize_acceptance/run.sh) and keeps its histories, summaries and check in
# logs/optimize/. With GPU_RUN_TEMPLATES=none GPU_RUN_SELFTESTS=0 in --trust mode only kbuild's
# build and doctor (and the wheel, when .dist/ has one) run besides: one part fits one call,
# both need gpu-run-detached.sh. GPU_RUN_EXAMPLES ("qwen3_8b ltx_video") runs the end-to-end
# examples (examples/README.md), with GPU_RUN_EXAMPLE_ARGS passed to each run.py;
# GPU_RUN_FLUSH_PROBE=1 times a copy after each way of flushing L2 (l2_flush_probe.cu).
# GPU_RUN_NCU_PEERS ("template:FILTER ...", e.g. "rope:rope_ltx_tables/2x16x16x24x32x64.bf16")
# profiles our kernel beside each peer's under ncu for the bench cases FILTER matches
# (tools/peer_bench/ncu_beside_peers.py), with inductor's Triton source in the same log.
# GPU_RUN_CARRIED_KBUILD=1 skips kbuild's build and runs the .deps/bin/kbuild carried from the
# developer machine (a minute less of device time).
# GPU_RUN_DEFINES ("template:NAME=VALUE[,NAME=VALUE...][:FILTER[:notest]] ...") tests and
# benchmarks a template's project again with those macros (kbuild --define), after its default
# build: a tune knob tried beside the default (FILTER: the bench's --filter, no spaces; notest:
# bench only; the tests take the template's GPU_RUN_TEST_FILTERS entry, as the default's do).
# tools/tests/templates/test_knobs_compile.py compiles every knob's other values on the CPUs
# (run it before a call with a knob the suite has not seen).
# GPU_RUN_AB_ROUNDS=N (default 1) benchmarks the default build and the variants N times,
# interleaved (bench-<template>[-<macros>]-round<r>), and ab-<template>.md sets each variant
# against the default round by round (tools/peer_bench/ab_rounds.py): a gain that one round
# shows may be the machine's drift. A knob that wins becomes the default once
# tools/peer_bench/sass_diff.py finds the new default build identical to the tested knob build
# (--rev-a <tested commit> -a NAME=1 --expect-identical).
# Templates, and each GPU_RUN_DEFINES variant in a project of its own, are built on the CPUs in
# parallel while the GPU steps before them run (GPU_RUN_PREBUILD=0: one at a time, in each
# template's step, the variants rebuilding the template's project).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

MODE="" DRY=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY=1 ;;
    --quick | --checks | --benches | --build-only | --rmsnorm | --peers-only | --features | \
      --trust)
      MODE="$arg" ;;
    *) echo "usage: $0 [--quick | --checks | --benches | --build-only | --rmsnorm |" \
         "--peers-only | --features | --trust] [--dry-run]" >&2
       exit 2 ;;
  esac
done

# What each mode runs (1 = run). TEMPLATES: build + load/call every template (or ONLY_TEMPLATE);
# TESTS / BENCHES: kbuild test / bench per template; FEATURES: --sanitize, --graph, --compare on
# the rmsnorm template; SWEEP / NCU: the launch-shape sweep and its counters; PLAIN_SELFTEST: the
# wrong kernels through plain CMake (run.sh); KBUILD_SELFTESTS: the wrong kernels and isolation
# through kbuild; SANITIZE_PROOF: sanitize.sh; PEERS: the peer benchmark; PROBE:
# small_shape_probe.py under ncu (kernel-only times at 1-1024 tokens); WHEEL: the pip wheel
# carried in .dist/ installed into this machine's torch environment, then a template built,
# tested and benchmarked by that installed kbuild alone.
TEMPLATES=1 TESTS=1 BENCHES=1 FEATURES=1 SWEEP=1 NCU=0 PLAIN_SELFTEST=1 KBUILD_SELFTESTS=1
SANITIZE_PROOF=1 PEERS=1 PROBE=0 WHEEL=1 ONLY_TEMPLATE=""
case "$MODE" in
  --quick) PEERS=0 ;;
  --checks) BENCHES=0 PLAIN_SELFTEST=0 PEERS=0 ;;
  --benches) TESTS=0 PLAIN_SELFTEST=0 KBUILD_SELFTESTS=0 PEERS=0 WHEEL=0 ;;
  --build-only) TESTS=0 BENCHES=0 FEATURES=0 SWEEP=0 PLAIN_SELFTEST=0 KBUILD_SELFTESTS=0
    SANITIZE_PROOF=0 PEERS=0 WHEEL=0 ;;
  --rmsnorm) NCU=1 PLAIN_SELFTEST=0 KBUILD_SELFTESTS=0 SANITIZE_PROOF=0 PEERS=0 PROBE=1
    ONLY_TEMPLATE=rmsnorm WHEEL=0 ;;
  --peers-only) TEMPLATES=0 TESTS=0 BENCHES=0 FEATURES=0 SWEEP=0 PLAIN_SELFTEST=0
    KBUILD_SELFTESTS=0 SANITIZE_PROOF=0 PROBE=1 WHEEL=0 ;;
  --trust) FEATURES=0 SWEEP=0 PLAIN_SELFTEST=0 SANITIZE_PROOF=0 PEERS=0 ;;
  --features) TESTS=0 BENCHES=0 SWEEP=0 PLAIN_SELFTEST=0 KBUILD_SELFTESTS=0 SANITIZE_PROOF=0
    PEERS=0 ONLY_TEMPLATE=rmsnorm WHEEL=0 ;;
esac
# Per-run overrides of a mode's choices, for a call that must fit one device budget.
SWEEP="${GPU_RUN_SWEEP:-$SWEEP}" KBUILD_SELFTESTS="${GPU_RUN_SELFTESTS:-$KBUILD_SELFTESTS}"
WORKER_TESTS="${GPU_RUN_WORKER_TESTS:-$KBUILD_SELFTESTS}" TESTS="${GPU_RUN_TESTS:-$TESTS}"
PROBE="${GPU_RUN_PROBE:-$PROBE}" FEATURES="${GPU_RUN_FEATURES:-$FEATURES}"
GRAPH_BENCH="${GPU_RUN_GRAPH_BENCH:-0}" PROFILE="${GPU_RUN_PROFILE:-0}"
AB_ROUNDS="${GPU_RUN_AB_ROUNDS:-1}"
[[ "$AB_ROUNDS" =~ ^[1-9][0-9]?$ ]] || { echo "GPU_RUN_AB_ROUNDS must be 1-99" >&2; exit 2; }
declare -A TEST_FILTER=() BENCH_FILTER=()
for entry in ${GPU_RUN_TEST_FILTERS:-}; do TEST_FILTER["${entry%%=*}"]="${entry#*=}"; done
for entry in ${GPU_RUN_BENCH_FILTERS:-}; do BENCH_FILTER["${entry%%=*}"]="${entry#*=}"; done

FINAL_OUT="${OUT:-$ROOT/gpu-out}"
WORK="${KBUILD_GPU_WORK:-/tmp/kbuild-gpu}"
OUT="$WORK/logs"
SUMMARY="$OUT/summary.tsv"
if [[ $DRY == 0 ]]; then
  mkdir -p "$FINAL_OUT" "$WORK"; rm -rf "$OUT"; mkdir -p "$OUT"; : > "$SUMMARY"
fi
export PYTHONUNBUFFERED=1 KBUILD_HOME="$ROOT" KBUILD_CACHE_DIR="$WORK/cache"

# bench_into TEMPLATE NAME PROJECT ARGS...: kbuild bench ARGS of PROJECT, its table and JSON
# kept as NAME.md and NAME.json (a NAME ending in -round<r> names the step's round).
bench_into() {
  local t="$1" name="$2" proj="$3" round=""; shift 3
  [[ "$name" =~ -round([0-9]+)$ ]] && round=" (round ${BASH_REMATCH[1]})"
  step "$t: kbuild bench${*:+ $*}$round" "$t.log" kbuild -C "$proj" bench "$@"
  if [[ $DRY == 0 ]]; then
    for ext in md json; do cp "$proj/results/latest.$ext" "$OUT/$name.$ext" 2>/dev/null; done
  fi
  return 0
}

# step NAME LOGFILE CMD...: runs CMD, logs it, records status and seconds in the summary.
step() {
  local name="$1" log="$OUT/$2"; shift 2
  if [[ $DRY == 1 ]]; then echo "would run: $name"; return 0; fi
  local t0=$SECONDS
  echo "== $name" | tee -a "$log"
  "$@" >>"$log" 2>&1
  local rc=$?
  printf '%s\t%s\t%ss\t%s\n' "$name" "$([[ $rc == 0 ]] && echo ok || echo "FAIL($rc)")" \
    "$((SECONDS - t0))" "logs/$(basename "$log")" >> "$SUMMARY"
  return $rc
}

if [[ $DRY == 0 ]]; then
  {
    date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
  } > "$OUT/env.txt" 2>&1
  cat "$OUT/env.txt"
  # Stash whatever peer wheels (or wheel chunks) this transfer carried: a later --peers-only call
  # on the same machine finds them here (tools/peer_bench/README.md).
  WHEELS="$WORK/wheels"; mkdir -p "$WHEELS"
  cp "$ROOT"/.whl*/*.whl "$ROOT"/.whl*/*.part.* "$WHEELS"/ 2>/dev/null
fi

# Before the templates: `kbuild bench` times the peers a project lists in benchmarks/peers.py
# (torch.compile, Liger, QuACK) in its Python worker, which imports them from here.
if [[ $DRY == 0 ]]; then
  # Peer wheels travel in .whl/ (or split over .whl-a/, .whl-b/ and .whl-c/ to fit the transfer limit;
  # a wheel too large for one transfer travels as <name>.part.* chunks joined here).
  for first in "$WHEELS"/*.part.aa; do
    base="${first%.part.aa}"
    [[ -e "$first" && -e "$base.part.ab" ]] || continue   # join once every chunk has arrived
    cat "$base".part.* > "$base" && rm -f "$base".part.*
  done
  ls "$WHEELS" > "$OUT/wheels.log"
  # cuda-bindings is for QuACK's CuTe DSL; the torch environment's own copy wins when it has one.
  python3 -c 'import cuda.bindings' 2>/dev/null && rm -f "$WHEELS"/cuda_bindings-*.whl
  if ls "$WHEELS"/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site "$WHEELS"/*.whl >> "$OUT/wheels.log" 2>&1
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
    # .pth files (the CuTe DSL puts its `cutlass` package on sys.path through one) are read only
    # in site directories, not on PYTHONPATH: add the folder they name.
    [[ -d /tmp/site/nvidia_cutlass_dsl/dsl_packages ]] && \
      export PYTHONPATH="/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PYTHONPATH"
  fi
fi
# GPU_RUN_FLUSH_PROBE=1, first (it needs no kbuild and takes seconds): does the L2 flush (a
# write of 2 x L2) slow the timed kernel through dirty lines? A copy of 4-1024 MB after a
# memset, a read, or both (tools/peer_bench/l2_flush_probe.cu).
if [[ "${GPU_RUN_FLUSH_PROBE:-0}" == 1 ]]; then
  step "L2 flush probe" flush-probe.log bash -c "nvcc -O3 -std=c++17 -arch=sm_90a \
    '$ROOT/tools/peer_bench/l2_flush_probe.cu' -o '$WORK/flush_probe' && '$WORK/flush_probe'"
fi

if [[ $TEMPLATES == 1 || $KBUILD_SELFTESTS == 1 || $SANITIZE_PROOF == 1 ]]; then
  BUILD="$WORK/kbuild-build"
  # GPU_RUN_CARRIED_KBUILD=1: the carried .deps/bin/kbuild (built on the developer machine; it
  # runs there unchanged, ../shared/DEVICE.md) saves the minute of this build.
  if [[ "${GPU_RUN_CARRIED_KBUILD:-0}" == 1 ]]; then
    echo "GPU_RUN_CARRIED_KBUILD=1: kbuild is not built here"
  else
    step "build kbuild" kbuild-build.log bash -c "cmake -S '$ROOT' -B '$BUILD' -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DKBUILD_BUILD_TESTS=OFF && cmake --build '$BUILD'"
  fi
  KBUILD="$BUILD/tools/kbuild/kbuild"
  if [[ $DRY == 0 && ! -x "$KBUILD" && -x "$ROOT/.deps/bin/kbuild" ]]; then
    KBUILD="$ROOT/.deps/bin/kbuild"; echo "using the kbuild binary built on the developer machine"
  fi
  export PATH="$(dirname "$KBUILD"):$PATH"
  step "doctor" doctor.log kbuild doctor
  [[ $DRY == 0 ]] && kbuild doctor --json > "$OUT/doctor.json" 2>/dev/null
fi

# The templates this mode builds, in order (GPU_RUN_TEMPLATES, else all).
TEMPLATE_DIRS=()
if [[ $TEMPLATES == 1 ]]; then
  for tdir in "$ROOT"/templates/*/; do TEMPLATE_DIRS+=("$tdir"); done
  if [[ -n "${GPU_RUN_TEMPLATES:-}" ]]; then
    TEMPLATE_DIRS=(); for t in $GPU_RUN_TEMPLATES; do TEMPLATE_DIRS+=("$ROOT/templates/$t/"); done
  fi
  kept=()
  for tdir in "${TEMPLATE_DIRS[@]}"; do
    t="$(basename "$tdir")"; [[ -f "$tdir/template.toml" ]] || continue
    [[ -n "$ONLY_TEMPLATE" && "$t" != "$ONLY_TEMPLATE" ]] && continue
    kept+=("$tdir")
  done
  TEMPLATE_DIRS=("${kept[@]}")
fi
source "$ROOT/tools/scripts/gpu-run-prebuild.sh"
start_prebuilds

# The harness self-tests first: the wrong kernels need only kbuild.
BAD="$ROOT/tools/harness/bad_kernels"
[[ $PLAIN_SELFTEST == 1 ]] && step "harness self-test (wrong kernels, plain CMake)" \
  harness-selftest.log bash "$BAD/run.sh" "$WORK/bad-kernels"
if [[ $KBUILD_SELFTESTS == 1 ]]; then
  step "harness self-test: kbuild test on the wrong kernels" harness-selftest.log \
    kbuild -C "$BAD" test ${GPU_RUN_SELFTEST_FILTER:+--filter "$GPU_RUN_SELFTEST_FILTER"}
  # A faulting and an endless kernel must fail only their own tests (exit 1, the CUDA error,
  # "timed out after 20 s") while kbuild survives and a later test still passes.
  step "harness self-test: kbuild test isolates crash + hang" harness-selftest.log \
    bash "$BAD/isolation.sh" kbuild
fi
[[ $SANITIZE_PROOF == 1 ]] && step "harness self-test: kbuild test --sanitize reports findings" \
  harness-selftest.log bash "$BAD/sanitize.sh" kbuild
# kbuild bench's Python worker: its timing rules and value checks on a real GPU (they skip
# without one).
[[ $WORKER_TESTS == 1 ]] && step "bench worker tests (pytest, GPU)" bench-worker.log \
  python3 -m pytest -q -rs "$ROOT/tools/harness/python"
# The C++ side of the same rules (tools/harness/tests/torch/host_ahead_gpu_test.cpp) and the
# L2 flush's read kernel (l2_flush_gpu_test.cpp).
[[ $WORKER_TESTS == 1 ]] && step "host kept ahead + L2 flush: C++ timing tests (GPU)" bench-worker.log \
  bash -c "cmake -S '$ROOT' -B '$WORK/test-build' -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKBUILD_BUILD_TESTS=ON -DKBUILD_TORCH_DIR=\"\$(python3 -c 'import os, torch; \
    print(os.path.dirname(torch.__file__))')\" > /dev/null && cmake --build '$WORK/test-build' \
    --target kbuild_harness_torch_tests && \
    '$WORK/test-build/tools/harness/kbuild_harness_torch_tests' --gtest_filter='HostAhead*:ReadKernelOnGpu*'"

# kbuild profile on a kernel near the copy limit and on one slow on purpose (uncoalesced, through
# local memory): the two summaries must tell them apart and name the causes.
if [[ $PROFILE == 1 ]]; then
  proj="$WORK/proj-rmsnorm"
  [[ -d "$proj/build" || $DRY == 1 ]] || step "rmsnorm: init+build (for kbuild profile)" \
    profile.log bash -c "kbuild init rmsnorm-demo --template rmsnorm --dir '$proj' && \
      kbuild -C '$proj' build"
  for target in "$proj|rms_norm/8192x4096 bf16|rmsnorm" "$BAD|slow_copy/16777216 fp32|slow-copy"; do
    IFS='|' read -r dir case_name tag <<< "$target"
    step "kbuild profile: $case_name" profile.log bash -c "kbuild -C '$dir' profile \
      --case '$case_name' && kbuild -C '$dir' profile --case '$case_name' --json \
      > '$OUT/profile-$tag.json'"
  done
fi

if [[ $TEMPLATES == 1 ]]; then
  for tdir in "${TEMPLATE_DIRS[@]}"; do
    t="$(basename "$tdir")"; proj="$WORK/proj-$t"
    if [[ $DRY == 0 && -f "$WORK/prebuild-$t.pid" ]]; then   # started above, beside the GPU steps
      step "$t: init+check+build" "$t.log" bash -c "$(waited_build "$t")" || continue
    else
      [[ $DRY == 0 ]] && rm -rf "$proj"
      step "$t: init+check+build" "$t.log" bash -c "$(init_and_build "$t" "$proj")" || continue
    fi
    [[ "${GPU_RUN_SMOKE:-1}" == 1 ]] && \
      step "$t: load+call (python)" "$t.log" python3 "$ROOT/tools/scripts/smoke_call.py" "$t" "$proj"
    filter="${TEST_FILTER[$t]:-}"
    [[ $TESTS == 1 && " ${GPU_RUN_TEST_TEMPLATES:-$t} " == *" $t "* ]] && \
      step "$t: kbuild test${filter:+ --filter $filter}" "$t.log" \
      kbuild -C "$proj" test ${filter:+--filter "$filter"}
    bfilter="${BENCH_FILTER[$t]:-}" benched=0
    if [[ $BENCHES == 1 && " ${GPU_RUN_BENCH_TEMPLATES:-$t} " == *" $t "* ]]; then
      benched=1
      bench_into "$t" "bench-$t" "$proj" ${bfilter:+--filter "$bfilter"}
      cp "$proj/results/latest.svg" "$OUT/bench-$t.svg" 2>/dev/null
      if [[ $GRAPH_BENCH == 1 || " $GRAPH_BENCH " == *" $t "* ]]; then
        bench_into "$t" "bench-$t-graph" "$proj" --graph
      fi
    fi
    # Our kernel and the peers' under ncu, side by side, for the cases GPU_RUN_NCU_PEERS names
    # ("template:FILTER ...", FILTER a bench --filter without spaces): ncu-peers-<template>.log.
    for entry in ${GPU_RUN_NCU_PEERS:-}; do
      [[ "${entry%%:*}" == "$t" ]] || continue
      nfilter="${entry#*:}"
      step "$t: ncu beside peers ($nfilter)" "ncu-peers-$t.log" bash -c "cd '$proj' && \
        kbuild bench --filter '$nfilter' && job=\$(ls -t build/bench-results/peers-job-*.json \
        | head -1) && TORCH_LOGS=output_code ncu --nvtx --nvtx-include kbuild_ncu/ \
        --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy \
        --section MemoryWorkloadAnalysis --section WarpStateStats python3 \
        '$ROOT/tools/peer_bench/ncu_beside_peers.py' --job \"\$job\""
    done
    # The template built with other macros (GPU_RUN_DEFINES), tested, then benchmarked beside
    # the default build above (in its own project when prebuilt): bench-<template>-<macros>.
    # With GPU_RUN_AB_ROUNDS=N the default's bench and the variants' run N times, interleaved
    # (bench-<template>[-<macros>]-round<r> from the second round), and ab-<template>.md
    # (tools/peer_bench/ab_rounds.py) sets each variant against the default round by round.
    variants=() vdefines=() vprojects=() vfilters=()
    for entry in ${GPU_RUN_DEFINES:-}; do
      IFS=: read -r dt defs dfilter dtest <<< "$entry"
      [[ "$dt" == "$t" ]] || continue
      dargs=(); for d in ${defs//,/ }; do dargs+=(--define "$d"); done
      vname="$(variant_name "$t" "$defs")" dproj="$proj"
      if [[ $DRY == 0 && -f "$WORK/prebuild-$vname.pid" ]]; then
        dproj="$WORK/proj-$vname"
        step "$t: build ${dargs[*]}" "$t.log" bash -c "$(waited_build "$vname")" || continue
      fi
      [[ $TESTS == 1 && "$dtest" != notest ]] && \
        step "$t: kbuild test ${dargs[*]}${filter:+ --filter $filter}" "$t.log" \
        kbuild -C "$dproj" test "${dargs[@]}" ${filter:+--filter "$filter"}
      # macros and filters hold no spaces: the --define words are split again below
      variants+=("${defs//,/-}") vdefines+=("${dargs[*]}") vprojects+=("$dproj")
      vfilters+=("$dfilter")
    done
    for ((round = 1; round <= AB_ROUNDS && BENCHES == 1; round++)); do
      suffix="" && ((round > 1)) && suffix="-round$round"
      if ((round > 1)); then
        [[ $benched == 1 ]] || break
        bench_into "$t" "bench-$t$suffix" "$proj" ${bfilter:+--filter "$bfilter"}
      fi
      for i in "${!variants[@]}"; do
        # shellcheck disable=SC2086
        bench_into "$t" "bench-$t-${variants[$i]}$suffix" "${vprojects[$i]}" ${vdefines[$i]} \
          ${vfilters[$i]:+--filter "${vfilters[$i]}"}
      done
    done
    [[ $benched == 1 && ${#variants[@]} -gt 0 ]] && \
      step "$t: A/B table (ab-$t.md)" "$t.log" bash -c "python3 \
        '$ROOT/tools/peer_bench/ab_rounds.py' '$OUT' '$t' > '$OUT/ab-$t.md'"
  done
fi

# kbuild tune on fresh template projects: every variant built on the CPUs, benchmarked on the
# GPU, the best one fully tested (kbuild tune --help).
for entry in ${GPU_RUN_TUNE:-}; do
  IFS=: read -r t budget seconds <<< "$entry"
  seconds="${seconds:-${GPU_RUN_TUNE_TIME:-480}}" proj="$WORK/tune-$t"
  [[ $DRY == 0 ]] && rm -rf "$proj"
  step "$t: kbuild tune --budget $budget --time $seconds" "tune-$t.log" bash -c "kbuild init \
    '${t//_/-}-tune' --template '$t' --dir '$proj' && kbuild -C '$proj' tune --strategy random \
    --seed 1 --budget '$budget' --build-jobs 12 --full-tests 1 --time '$seconds'"
  if [[ $DRY == 0 ]]; then
    mkdir -p "$OUT/tune-$t"
    for f in summary.md heatmap.svg tuned_config.h history.jsonl; do
      cp "$proj"/results/tune-*/"$f" "$OUT/tune-$t/" 2>/dev/null
    done
  fi
done

# ---- kbuild optimize acceptance (tools/optimize_acceptance/README.md) ----
# GPU_RUN_OPTIMIZE=scripted: seven scripted candidates, each with its own verdict, the fast one
# the winner; =builtin: --proposer builtin from a naive RMSNorm to >= 80% of the template's
# geomean; =1 (or all): both, longer than one 10-minute call. Results in logs/optimize/.
if [[ -n "${GPU_RUN_OPTIMIZE:-}" && "${GPU_RUN_OPTIMIZE}" != 0 ]]; then
  part="${GPU_RUN_OPTIMIZE}"
  [[ "$part" == 1 ]] && part=all
  step "kbuild optimize acceptance ($part)" optimize.log \
    bash "$ROOT/tools/optimize_acceptance/run.sh" "$WORK/optimize" "$OUT/optimize" "$part"
fi
# ---- end of the kbuild optimize acceptance ----

# GPU_RUN_SCALE_OUT=1: kbuild tune and optimize on one GPU and on all of the host's, a worker's
# child killed mid-run, the throughput table and its verdicts (tools/scale_out/README.md);
# longer than one 10-minute call. Results in logs/scale-out/.
if [[ "${GPU_RUN_SCALE_OUT:-0}" == 1 ]]; then
  step "kbuild tune and optimize over the host's GPUs" scale-out.log \
    bash "$ROOT/tools/scale_out/run.sh" "$WORK/scale-out" "$OUT/scale-out"
fi

# The end-to-end examples (examples/README.md): GPU_RUN_EXAMPLES="qwen3_8b ltx_video" runs each
# one's run.py (the model with and without our kernels, eager and compiled) with
# GPU_RUN_EXAMPLE_ARGS (e.g. "--layers 4" for a quick check); diffusers and the `kernels`
# package come from .whl-ex/ (tools/scripts/fetch-example-wheels.sh), carried with the call.
# Results (JSON and a markdown table) in logs/example-<name>/. An entry NAME+ARGS adds run.py
# arguments of its own, comma-separated, into logs/example-NAME+ARGS/ (e.g.
# qwen3_8b+--compile-mode=reduce-overhead: CUDA graphs in both compiled columns;
# qwen3_8b+--fuse-layer-boundaries).
for ex in ${GPU_RUN_EXAMPLES:-}; do
  name="${ex%%+*}"
  extra=()
  [[ "$ex" == *+* ]] && IFS=, read -ra extra <<< "${ex#*+}"
  step "example $name${extra[*]:+ ${extra[*]}}" "example-$ex.log" python3 \
    "$ROOT/examples/$name/run.py" --out "$OUT/example-$ex" --workdir "$WORK/examples" \
    "${extra[@]}" ${GPU_RUN_EXAMPLE_ARGS:-}
done

# Harness features on a real template: memcheck on one test, and the small rmsnorm cases timed
# flushed, then as CUDA-graph replays, then compared with the flushed run.
proj="$WORK/proj-rmsnorm"
if [[ $FEATURES == 1 && ( -d "$proj/build" || $DRY == 1 ) ]]; then
  step "rmsnorm: kbuild test --sanitize memcheck" rmsnorm-harness.log \
    kbuild -C "$proj" test --sanitize memcheck --filter 'RmsNorm.WeightOfInputDtype'
  small='rms_norm/(1|128|512)x4096 bf16'
  step "rmsnorm: kbuild bench (small cases)" rmsnorm-harness.log \
    kbuild -C "$proj" bench --filter "$small"
  [[ $DRY == 0 ]] && cp "$proj/results/latest.json" "$WORK/small-baseline.json"
  step "rmsnorm: kbuild bench --graph (small cases)" rmsnorm-harness.log \
    kbuild -C "$proj" bench --graph --filter "$small"
  step "rmsnorm: kbuild bench --compare (small cases)" rmsnorm-harness.log \
    kbuild -C "$proj" bench --filter "$small" --compare "$WORK/small-baseline.json"
fi

# Launch-shape sweep of the rmsnorm kernel (tools/peer_bench/rmsnorm_launch_sweep.cu), and
# hardware counters for one mid-size shape (DRAM throughput, warps resident) under ncu.
if [[ $SWEEP == 1 ]]; then
  step "rmsnorm launch-shape sweep" sweep.log bash -c \
    "nvcc -O3 -std=c++17 -arch=sm_90a -I '$ROOT/templates/rmsnorm/{{python_name}}_cuda' \
       '$ROOT/tools/peer_bench/rmsnorm_launch_sweep.cu' -o '$WORK/sweep' && '$WORK/sweep'"
  if [[ $NCU == 1 ]] && { [[ $DRY == 1 ]] || command -v ncu >/dev/null; }; then
    metrics="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed"
    metrics+=",sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread"
    metrics+=",launch__grid_size,launch__block_size"
    step "rmsnorm sweep under ncu (2048x4096)" ncu.log bash -c "ncu --clock-control none \
      --kernel-name regex:'RmsNorm(Register|Persistent)Kernel|CandidateKernel' --csv --metrics $metrics \
      '$WORK/sweep' 2048x4096 > '$OUT/ncu-2048x4096.csv'"
  fi
fi

# Listed projects are tested and benchmarked whenever listed (GPU_RUN_TESTS=0 skips only the
# templates' tests).
if [[ $TEMPLATES == 1 ]]; then
  for proj in ${GPU_RUN_PROJECTS:-}; do
    [[ -f "$proj/build.toml" ]] || { echo "GPU_RUN_PROJECTS: no build.toml in $proj"; continue; }
    name="$(basename "$proj")"; copy="$WORK/extra-$name"
    [[ $DRY == 0 ]] && { rm -rf "$copy"; cp -r "$proj" "$copy"; }
    # A trial project's hidden cases (tools/trials/README.md) join its own tests here only.
    hidden="$ROOT/tools/trials/hidden/$name"
    [[ $DRY == 0 && -d "$hidden" ]] && cp "$hidden"/*.cpp "$copy/tests/"
    step "$name: check+build" "extra-$name.log" \
      bash -c "kbuild -C '$copy' check && kbuild -C '$copy' build" || continue
    step "$name: kbuild test" "extra-$name.log" kbuild -C "$copy" test
    step "$name: kbuild bench" "extra-$name.log" kbuild -C "$copy" bench
    for ext in md json; do
      [[ $DRY == 0 ]] && cp "$copy/results/latest.$ext" "$OUT/bench-$name.$ext" 2>/dev/null
    done
  done
fi

# The wheel (`pip wheel .` on the developer machine, carried in .dist/) in this machine's torch
# environment: with KBUILD_HOME unset it must find its own data and build, test and bench a
# template; doctor must say the data was found beside the executable.
if [[ $WHEEL == 1 && $DRY == 0 ]] && ! ls "$ROOT"/.dist/kbuild-*.whl >/dev/null 2>&1; then
  echo "no wheel in .dist/: the wheel steps are skipped"
  printf 'kbuild wheel\tskipped (no .dist/kbuild-*.whl carried)\t0s\t-\n' >> "$SUMMARY"
  WHEEL=0
fi
if [[ $WHEEL == 1 ]]; then
  step "kbuild wheel: install into the torch environment" wheel.log bash -c \
    "ls '$ROOT'/.dist/kbuild-*.whl && python3 -m pip install --no-index --no-deps \
      --force-reinstall '$ROOT'/.dist/kbuild-*.whl && ldd \"\$(python3 -c 'import sys; \
      print(sys.prefix)')/bin/kbuild\""
  step "kbuild wheel: blank init+build+test+bench" wheel.log env -u KBUILD_HOME bash -c \
    'kb="$(python3 -c "import sys; print(sys.prefix)")/bin/kbuild" && rm -rf "$1" &&
     "$kb" doctor --no-bench --json | grep -q "installed beside the executable" &&
     "$kb" init wheel-demo --template blank --dir "$1" && "$kb" -C "$1" build &&
     "$kb" -C "$1" test && "$kb" -C "$1" bench' _ "$WORK/wheel-blank"
fi


if [[ $PEERS == 1 ]]; then
  step "peer benchmark (rmsnorm)" peers.log \
    python3 -X faulthandler "$ROOT/tools/peer_bench/rmsnorm_peers.py" "$WORK/proj-rmsnorm" \
      --fused "$WORK/proj-fused_add_rmsnorm" --head "$WORK/proj-head_rmsnorm" \
      --json "$OUT/peers.json" ${PEER_ARGS:-}
  [[ $DRY == 0 ]] && cp "$OUT/peers.log" "$OUT/peers.md"
fi
# Kernel-only time (ncu, cold caches) of ours and each peer at 1-1024 tokens: tells a faster
# kernel from a faster launch path when a peer wins there under do_bench. The sweep's launch
# shapes at 1 and 128 rows too, when an earlier run built it (plain vs overlapped launches).
if [[ $PROBE == 1 ]] && { [[ $DRY == 1 ]] || command -v ncu >/dev/null; }; then
  metrics="gpu__time_duration.sum,launch__grid_size,launch__block_size"
  metrics+=",launch__registers_per_thread,dram__bytes_read.sum"
  # Where each kernel's warps wait (WarpStateStats: long scoreboard = memory, barrier, no
  # instruction = instruction fetch) and what it executes, beside the durations.
  step "small-shape kernels under ncu (ours vs peers)" probe.log bash -c "ncu \
    --profile-from-start off --clock-control none --csv --metrics $metrics \
    --section WarpStateStats --section InstructionStats --section SpeedOfLight \
    python3 '$ROOT/tools/peer_bench/small_shape_probe.py' '$WORK/proj-rmsnorm' \
    ${GPU_RUN_PROBE_SHAPES:-} > '$OUT/ncu-small-shapes.csv' && if [[ -x '$WORK/sweep' ]]; then for s in 1x4096 128x4096; \
    do ncu --clock-control none --kernel-name regex:'RmsNorm|CandidateKernel' --csv --metrics $metrics \
    '$WORK/sweep' \$s \
    > '$OUT/ncu-sweep-'\$s.csv || exit 1; done; fi"
fi

[[ $DRY == 1 ]] && exit 0
for extra in ${GPU_RUN_EXTRA:-}; do [[ -f "$extra" ]] && cp "$extra" "$OUT/"; done
tar -czf "$FINAL_OUT/gpu-logs.tar.gz" -C "$WORK" logs
cp "$SUMMARY" "$OUT"/peers.md "$OUT"/peers.json "$FINAL_OUT"/ 2>/dev/null
echo; echo "== summary"
# column(1) is not on every machine: align with awk.
awk -F'\t' '{ printf "%-52s %-10s %6s  %s\n", $1, $2, $3, $4 }' "$SUMMARY"
