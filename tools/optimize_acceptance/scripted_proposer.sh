#!/bin/sh
# The proposer of the scripted acceptance run: on its n-th call it writes
# CANDIDATES_DIR/<n>/. (whole files at their project paths, made by
# make_projects.sh) into $KBUILD_OPTIMIZE_OUT and reports a cost. Calls are
# counted in STATE_DIR/count; it fails when the candidates run out.
# Usage (as kbuild optimize --proposer): scripted_proposer.sh STATE_DIR CANDIDATES_DIR
set -eu
state=$1
candidates=$2
mkdir -p "$state"
n=$(cat "$state/count" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$state/count"
test -f "$KBUILD_OPTIMIZE_PROMPT" || { echo "no prompt at \$KBUILD_OPTIMIZE_PROMPT" >&2; exit 3; }
if [ ! -d "$candidates/$n" ]; then
  echo "out of candidates: no $candidates/$n" >&2
  exit 1
fi
cp -R "$candidates/$n/." "$KBUILD_OPTIMIZE_OUT/"
printf '{"tokens": 0, "usd": 0, "seconds": 0}\n' > "$KBUILD_OPTIMIZE_COST"
