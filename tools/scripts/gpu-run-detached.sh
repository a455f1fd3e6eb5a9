#!/usr/bin/env bash
# Runs tools/scripts/gpu-run.sh [MODE] on the GPU machine detached from the calling command, so
# a run longer than one device call (10 minutes) survives the call's end; then waits up to
# WAIT seconds (default 560) for it. Call it again, with the same MODE, while the machine is still
# held, to keep waiting: it never starts a second run while one is going, and a finished run
# is started afresh only after its logs have been collected once.
# Every call copies the logs so far to $OUT (gpu-logs.tar.gz, summary.tsv, run.out) and prints
# the summary; the last line says "running" or "finished (exit N)".
#
# Usage: tools/scripts/gpu-run-detached.sh [MODE]     (MODE as for gpu-run.sh)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export KBUILD_GPU_WORK="${KBUILD_GPU_WORK:-/tmp/kbuild-gpu}"
STATE=/tmp/gpu-run-detached
OUT="${OUT:-$ROOT/gpu-out}"
WAIT="${WAIT:-560}"
mkdir -p "$STATE" "$OUT"

if [[ -f "$STATE/collected" || ! -f "$STATE/started" ]]; then
  # kbuild's build needs TOML++, which the GPU machine lacks (gpu-run.sh falls back to a carried
  # .deps/bin/kbuild): with neither, every step after the build fails at once. Checked only before
  # a new run, so a re-poll of a running one always collects its logs.
  if [[ ! -f "$ROOT/.deps/include/toml++/toml.h" && ! -f /usr/include/toml++/toml.h &&
        ! -x "$ROOT/.deps/bin/kbuild" ]]; then
    echo "no TOML++ headers: run 'mkdir -p .deps/include && cp -r /usr/include/toml++" \
      ".deps/include/' here and pass carry [\".deps\"] to the device call" >&2
    exit 2
  fi
  rm -f "$STATE"/{started,exit,collected}
  date -u > "$STATE/started"
  # setsid: the run outlives this command; its output goes to a file, not to our pipe.
  setsid bash -c "OUT='$STATE/final' '$ROOT/tools/scripts/gpu-run.sh' $* > '$STATE/run.out' 2>&1; \
    echo \$? > '$STATE/exit'" < /dev/null > /dev/null 2>&1 &
  echo "started gpu-run.sh $* at $(cat "$STATE/started")"
fi

for ((waited = 0; waited < WAIT; waited += 10)); do
  [[ -f "$STATE/exit" ]] && break
  sleep 10
done

[[ -d "$KBUILD_GPU_WORK/logs" ]] && tar -czf "$OUT/gpu-logs.tar.gz" -C "$KBUILD_GPU_WORK" logs
cp "$KBUILD_GPU_WORK/logs/summary.tsv" "$STATE/run.out" "$OUT/" 2>/dev/null
cp "$STATE"/final/*.md "$STATE"/final/*.json "$OUT/" 2>/dev/null
awk -F'\t' '{ printf "%-52s %-10s %6s\n", $1, $2, $3 }' "$KBUILD_GPU_WORK/logs/summary.tsv" \
  2>/dev/null
if [[ -f "$STATE/exit" ]]; then
  touch "$STATE/collected"
  echo "finished (exit $(cat "$STATE/exit"))"
else
  echo "running (started $(cat "$STATE/started")); call again to keep waiting"
fi
