#!/usr/bin/env bash
# On a GPU machine: proves that `kbuild test --sanitize` reports what compute-sanitizer finds,
# and only that. Passes only when
#   - racecheck on BadKernels.SharedMemoryRaceWithoutBarrier: kbuild exits 1 and the test's
#     output says "compute-sanitizer found N error(s)" (N > 0);
#   - memcheck on Isolation.CrashIllegalAddress: the same (the invalid global access);
#   - memcheck on GoodKernels.CopyPasses (a correct kernel): kbuild exits 0.
# Usage: sanitize.sh [KBUILD]   (default: kbuild on PATH). Exit 0 proven, 1 not.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KBUILD="${1:-kbuild}"
GUARD=400  # compute-sanitizer slows tests down; kbuild itself must still finish
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
problems=()

# run_case TITLE EXPECTED_RC GREP_PATTERN KBUILD_ARGS...: runs kbuild test, checks exit code and
# (when the pattern is not empty) that the output matches it.
run_case() {
  local title="$1" want_rc="$2" pattern="$3"; shift 3
  echo "== $title: kbuild test $*"
  KBUILD_SELFTEST_ISOLATION=1 timeout "$GUARD" "$KBUILD" -C "$HERE" test "$@" >"$LOG" 2>&1
  local rc=$?
  cat "$LOG"
  [[ $rc == "$want_rc" ]] || problems+=("$title: kbuild exited $rc, expected $want_rc")
  if [[ -n "$pattern" ]] && ! grep -Eq "$pattern" "$LOG"; then
    problems+=("$title: output does not match /$pattern/")
  fi
}

run_case "racecheck finds the shared-memory race" 1 \
  'compute-sanitizer found [1-9][0-9]* error' \
  --sanitize racecheck --filter 'BadKernels.SharedMemoryRaceWithoutBarrier'
run_case "memcheck finds the illegal address" 1 \
  'compute-sanitizer found [1-9][0-9]* error' \
  --sanitize memcheck --timeout 120 --filter 'Isolation.CrashIllegalAddress'
run_case "memcheck passes a correct kernel" 0 '' \
  --sanitize memcheck --filter 'GoodKernels.CopyPasses'

echo
if [[ ${#problems[@]} -eq 0 ]]; then
  echo "sanitize proof: ok (racecheck -> race reported, memcheck -> illegal access reported," \
    "correct kernel clean)"
  exit 0
fi
echo "sanitize proof: FAILED"
for p in "${problems[@]}"; do echo "  - $p"; done
exit 1
