#!/bin/sh
# A proposer for kbuild optimize's tests: emits the prepared candidates
# candidates/1, 2, ... in turn (one per call), counting calls in $1/count.
# Fails when they run out. Reports a cost for each call.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
state=$1
n=$(cat "$state/count" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$state/count"
test -f "$KBUILD_OPTIMIZE_PROMPT" || { echo "no prompt" >&2; exit 3; }
if [ ! -d "$here/candidates/$n" ]; then
  echo "out of candidates" >&2
  exit 1
fi
cp -R "$here/candidates/$n/." "$KBUILD_OPTIMIZE_OUT/"
printf '{"tokens": 100, "usd": 0.5, "seconds": 2}\n' > "$KBUILD_OPTIMIZE_COST"
