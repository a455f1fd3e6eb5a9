#!/usr/bin/env bash
# kbuild tune and optimize over the GPUs of one host, against one GPU (README.md here), with the
# kbuild on PATH:
#   optimize  --proposer builtin on the rmsnorm template, the same --islands, on the first GPU
#             alone, then on all of them (one local worker per GPU)
#   kill      the same run on all GPUs while a child of the second GPU's worker is SIGKILLed:
#             the worker must be retired, its candidate judged on another GPU, nothing lost
#             or recorded twice (needs 2 GPUs)
#   tune      kbuild tune --backend queue with one `kbuild worker` per GPU, against one worker
# Then check.py reads the runs' --json documents and histories and prints the table and the
# verdicts (throughput >= 0.9x linear, the GPUs' baselines within 3%, the kill recorded).
# Writes to OUTDIR: env.txt, per run <run>.json (its --json), <run>.log (stderr), <run>/
# (history.jsonl, summary.md, workers.jsonl when written), check.txt. Exit 0 when the check
# passes, 1 when it fails, else the first failing step's code.
# Usage: run.sh WORKDIR OUTDIR
# Environment: SCALE_OUT_BUDGET (attempts or variants per run, default 4: an rmsnorm candidate
# takes about 80 s, most of it its one-job build, so the whole kit is about 25 minutes on 2
# GPUs), SCALE_OUT_GPUS (CUDA_VISIBLE_DEVICES entries to use, default every GPU nvidia-smi
# lists), SCALE_OUT_PARTS (default "optimize kill tune").
# check.py judges whatever ran.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 WORKDIR OUTDIR" >&2
  exit 2
fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1" "$2"
WORK="$(cd "$1" && pwd)" OUT="$(cd "$2" && pwd)"
BUDGET="${SCALE_OUT_BUDGET:-4}"
PARTS=" ${SCALE_OUT_PARTS:-optimize kill tune} "
if [[ -n "${SCALE_OUT_GPUS:-}" ]]; then
  IFS=', ' read -r -a GPUS <<< "$SCALE_OUT_GPUS"
else
  mapfile -t GPUS < <(nvidia-smi -L | sed -n 's/^GPU \([0-9]*\):.*/\1/p')
fi
N=${#GPUS[@]}
if [[ $N -lt 1 ]]; then
  echo "$0: no GPU (nvidia-smi -L lists none; SCALE_OUT_GPUS names them)" >&2
  exit 4
fi
ALL="$(IFS=,; echo "${GPUS[*]}")"

{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader || true
  nvcc --version | tail -2 || true
  kbuild --version
  echo "gpus: $ALL  budget: $BUDGET"
} > "$OUT/env.txt" 2>&1

PROJ="$WORK/scale-out-rmsnorm"
rm -rf "$PROJ"
kbuild init scale-out-rmsnorm --template rmsnorm --dir "$PROJ" > /dev/null
# The shared harness library and the project's binaries, built before any run is timed.
kbuild -C "$PROJ" build > /dev/null
kbuild -C "$PROJ" test --build-only > /dev/null
kbuild -C "$PROJ" bench --build-only > /dev/null

shopt -s nullglob
# runs_of KIND: how many results/KIND-* folders the project has; newest KIND: the newest one.
runs_of() {
  local runs=("$PROJ"/results/"$1"-*/)
  echo "${#runs[@]}"
}
newest() {
  local runs=("$PROJ"/results/"$1"-*/)
  if [[ ${#runs[@]} -gt 0 ]]; then ls -dt "${runs[@]}" | head -1 || true; fi
}

# keep NAME KIND: the newest run folder of the project (results/KIND-*) copied to OUT/NAME/.
keep() {
  local run
  run="$(newest "$2")"
  mkdir -p "$OUT/$1"
  for f in history.jsonl summary.md workers.jsonl; do
    [[ -f "$run/$f" ]] && cp "$run/$f" "$OUT/$1/"
  done
  echo "$run" > "$OUT/$1/run_dir.txt"
}

# optimize NAME DEVICES: kbuild optimize --proposer builtin on those GPUs, --islands N.
optimize() {
  CUDA_VISIBLE_DEVICES="$2" kbuild -C "$PROJ" optimize --proposer builtin --budget "$BUDGET" \
    --islands "$N" --json > "$OUT/$1.json" 2> "$OUT/$1.log"
  keep "$1" optimize
}

# tune NAME WORKERS: kbuild tune --backend queue --jobs WORKERS with one kbuild worker on each
# of the first WORKERS GPUs.
tune() {
  local before queue="" pids=() i
  before="$(runs_of tune)"
  kbuild -C "$PROJ" tune --backend queue --jobs "$2" --budget "$BUDGET" --full-tests 1 --json \
    > "$OUT/$1.json" 2> "$OUT/$1.log" &
  local run=$!
  for _ in $(seq 600); do
    kill -0 "$run" 2> /dev/null || break  # it ended (failed) before writing its queue
    if [[ $(runs_of tune) -gt $before ]]; then
      queue="$(newest tune)queue"
      [[ -f "$queue/config.json" ]] && break
    fi
    sleep 0.5
  done
  for ((i = 0; i < $2; i++)); do
    CUDA_VISIBLE_DEVICES="${GPUS[$i]}" kbuild worker --queue "$queue" --name "gpu${GPUS[$i]}" \
      --json > "$OUT/$1-worker$i.json" 2>> "$OUT/$1.log" &
    pids+=($!)
  done
  wait "$run"
  for p in "${pids[@]}"; do wait "$p" || true; done
  keep "$1" tune
}

if [[ "$PARTS" == *" optimize "* ]]; then
  optimize optimize-1gpu "${GPUS[0]}"
  [[ $N -ge 2 ]] && optimize "optimize-${N}gpu" "$ALL"
fi
if [[ $N -ge 2 && "$PARTS" == *" kill "* ]]; then
  # A child (kbuild test or bench) of the second GPU's worker, SIGKILLed once the baseline and
  # its timing on each GPU are recorded and an attempt is being judged there.
  before="$(runs_of optimize)"
  CUDA_VISIBLE_DEVICES="$ALL" kbuild -C "$PROJ" optimize --proposer builtin --budget "$BUDGET" \
    --islands "$N" --json > "$OUT/optimize-kill.json" 2> "$OUT/optimize-kill.log" &
  run=$!
  killed=""
  for _ in $(seq 2400); do
    sleep 0.5
    kill -0 "$run" 2> /dev/null || break  # the run ended first
    [[ $(runs_of optimize) -gt $before ]] || continue
    history="$(newest optimize)history.jsonl"
    [[ -f "$history" && $(grep -c . "$history") -ge 2 ]] || continue
    for pid in $(pgrep -f "kbuild -C .*/workers/1/project (test|bench)" || true); do
      if tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null |
          grep -qx "CUDA_VISIBLE_DEVICES=${GPUS[1]}"; then
        kill -9 "$pid" && killed="$pid" && break 2
      fi
    done
  done
  echo "killed: ${killed:-nothing}" >> "$OUT/optimize-kill.log"
  wait "$run" || true
  keep optimize-kill optimize
fi
if [[ "$PARTS" == *" tune "* ]]; then
  tune tune-1gpu 1
  [[ $N -ge 2 ]] && tune "tune-${N}gpu" "$N"
fi

python3 "$HERE/check.py" "$OUT" "$N" | tee "$OUT/check.txt"
exit "${PIPESTATUS[0]}"
