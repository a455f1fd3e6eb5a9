#!/usr/bin/env bash
# On a GPU machine: proves that `kbuild test` isolates kernels that end badly.
# Runs the Isolation tests (tests/isolation_test.cpp) through kbuild with a 20 s
# per-test timeout and passes only when
#   - kbuild exits 1 (a test failed), not 0, not 5 (internal error), not stuck;
#   - Isolation.CrashIllegalAddress failed naming the illegal address error;
#   - Isolation.Hang failed with "timed out after 20 s";
#   - Isolation.SurvivorRuns, run after both, passed.
# Usage: isolation.sh [KBUILD]   (default: kbuild on PATH). Exit 0 proven, 1 not.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KBUILD="${1:-kbuild}"
TEST_TIMEOUT=20
GUARD=300  # kbuild itself must never hang: the build is cached, three tests take ~25 s
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT

KBUILD_SELFTEST_ISOLATION=1 timeout "$GUARD" "$KBUILD" -C "$HERE" test --filter 'Isolation.*' \
  --timeout "$TEST_TIMEOUT" >"$LOG" 2>&1
rc=$?
cat "$LOG"

# The indented FAIL section(s) kbuild printed for one GoogleTest test.
fail_section() {
  awk -v tag="($1):" 'index($0, "FAIL ") == 1 { on = index($0, tag) > 0; if (on) print; next }
                      on && /^  / { print; next }
                      { on = 0 }' "$LOG"
}

problems=()
case $rc in
  1) ;;
  0) problems+=("kbuild exited 0: the crash and hang tests did not fail (was KBUILD_SELFTEST_ISOLATION=1 seen?)") ;;
  124) problems+=("kbuild did not finish within $GUARD s: kbuild itself hung") ;;
  5) problems+=("kbuild exited 5 (internal error)") ;;
  *) problems+=("kbuild exited $rc, expected 1 (2: usage/config, 3: build error, 4: no GPU/nvcc/torch)") ;;
esac
if ! fail_section Isolation.CrashIllegalAddress | grep -Eq 'cudaErrorIllegalAddress|illegal memory access'; then
  problems+=("Isolation.CrashIllegalAddress did not fail with the illegal address error (cudaErrorIllegalAddress)")
fi
if ! fail_section Isolation.Hang | grep -q "timed out after $TEST_TIMEOUT s"; then
  problems+=("Isolation.Hang did not fail with 'timed out after $TEST_TIMEOUT s'")
fi
if ! grep -Eq '^\[[0-9]+/[0-9]+\] Isolation\.SurvivorRuns ok ' "$LOG" ||
   [[ -n "$(fail_section Isolation.SurvivorRuns)" ]]; then
  problems+=("Isolation.SurvivorRuns did not pass after the crash and the hang")
fi

echo
if [[ ${#problems[@]} -eq 0 ]]; then
  echo "isolation proof: ok (crash -> illegal address error, hang -> timed out after" \
    "$TEST_TIMEOUT s, SurvivorRuns passed, kbuild exit 1)"
  exit 0
fi
echo "isolation proof: FAILED"
for p in "${problems[@]}"; do echo "  - $p"; done
exit 1
