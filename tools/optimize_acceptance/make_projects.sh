#!/usr/bin/env bash
# Prepares the projects of kbuild optimize's acceptance runs (README.md here) under WORKDIR,
# with the kbuild on PATH; needs no GPU:
#   naive-rmsnorm/     the rmsnorm template with rms_norm.cu replaced by naive_rms_norm.cu, a
#                      kbuild.toml [tune] over its NAIVE_* macros, and tests trimmed to the
#                      kernel's correctness (no host tests of the template's row planner, no
#                      inputs past 2^31 elements: those take a minute and 95 GB each)
#   template-rmsnorm/  the rmsnorm template as kbuild init writes it: the 80% reference
#   candidates/<n>/    what scripted_proposer.sh emits on its n-th call, as whole files at
#                      their project paths; candidates.tsv says what each is and the verdict
#                      kbuild optimize must give it
# Usage: make_projects.sh WORKDIR   (replaces those three folders if they exist)
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 WORKDIR" >&2
  exit 2
fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mkdir -p "$1" && cd "$1" && pwd)"
command -v kbuild >/dev/null || { echo "$0: no kbuild on PATH" >&2; exit 2; }

NAME="naive-rmsnorm"
PKG="naive_rmsnorm"   # kbuild init: the Python package is the name with '_' for '-'
PROJ="$WORK/$NAME"
TEMPLATE_PROJ="$WORK/template-rmsnorm"
CANDIDATES="$WORK/candidates"
KERNEL="${PKG}_cuda/rms_norm.cu"   # the one file every candidate replaces

rm -rf "$PROJ" "$TEMPLATE_PROJ" "$CANDIDATES"
kbuild init "$NAME" --template rmsnorm --dir "$PROJ" >/dev/null
kbuild init template-rmsnorm --template rmsnorm --dir "$TEMPLATE_PROJ" >/dev/null

# The template's kernel, kept before it is replaced: the fast candidate.
TEMPLATE_KERNEL="$(mktemp)"
trap 'rm -f "$TEMPLATE_KERNEL"' EXIT
cp "$PROJ/$KERNEL" "$TEMPLATE_KERNEL"
NAIVE_SOURCE="$(sed "s/{{python_name}}/$PKG/g" "$HERE/naive_rms_norm.cu")"
printf '%s\n' "$NAIVE_SOURCE" > "$PROJ/$KERNEL"

# Tests: the kernel's correctness only. row_plan_test.cpp and row_span_test.cpp test the
# template's launch planner on the host (the naive kernel does not use it); the two
# inputs past 2^31 elements become empty shape lists. Every other case stays: three
# dtypes, three weight kinds, odd and long rows, short rows, offset views, tiny and
# near-max inputs, > 65,535 rows, the rejected strided layout.
rm "$PROJ/tests/row_plan_test.cpp" "$PROJ/tests/row_span_test.cpp"
TEST="$PROJ/tests/rms_norm_test.cpp"
for huge in 'HugeSplitRowShapes()' 'kb::harness::HugeShapes()'; do
  if [[ "$(grep -cF "$huge" "$TEST")" != 1 ]]; then
    echo "$0: expected one '$huge' in $TEST: the template changed, update this script" >&2
    exit 1
  fi
done
sed -i -e 's/HugeSplitRowShapes()/std::vector<std::vector<int64_t>>{}/' \
  -e 's/kb::harness::HugeShapes()/std::vector<std::vector<int64_t>>{}/' "$TEST"

# The [tune] space of the naive kernel's macros, ranked on the template's own bench-filter
# (the cases its kbuild tune ranks on).
BENCH_FILTER_LINE="$(grep '^bench-filter = ' "$TEMPLATE_PROJ/kbuild.toml")"
cat > "$PROJ/kbuild.toml" <<EOF
# kbuild-only settings. The [tune] space: the launch shape of the naive kernel
# (${PKG}_cuda/rms_norm.cu), the first value of each list its default. A coarse
# grid (the kernel takes every power of two from 1 to 1024 lanes and 1 to 8
# elements per load, and blocks of whole warps), so the few attempts that fit
# one GPU call can cross it; past 32 lanes a row spans warps, which rows of
# 3072-8192 elements need. Every point is valid (the kernel's static_asserts
# hold for each value listed): no constraints. At 512 lanes both NAIVE_BLOCK
# values build the same kernel (a block of one row, 512 threads); a constraint
# dropping one would also block the climb's repeated move 128 -> 512 lanes
# from NAIVE_BLOCK 256.
[tune]
max-spill-bytes = 0
# The template's ranked cases (templates/rmsnorm/kbuild.toml), bf16.
$BENCH_FILTER_LINE
[tune.params]
NAIVE_LANES = [1, 4, 16, 32, 128, 512]
NAIVE_VEC = [1, 4, 8]
NAIVE_BLOCK = [128, 256]
EOF

# The scripted candidates, in the order scripted_proposer.sh emits them. Faulty ones are
# the naive source behind one #define that switches on its ACCEPTANCE_FAULT_* hook.
printf 'n\tcandidate\texpected verdict\n' > "$WORK/candidates.tsv"
candidate() {  # candidate N WHAT VERDICT FIRST-LINE (FIRST-LINE "" = the template kernel)
  local n="$1" what="$2" verdict="$3" first="$4" file="$CANDIDATES/$1/$KERNEL"
  mkdir -p "$(dirname "$file")"
  if [[ -z "$first" ]]; then
    cp "$TEMPLATE_KERNEL" "$file"
  else
    printf '%s  // acceptance candidate %s: %s\n%s\n' "$first" "$n" "$what" "$NAIVE_SOURCE" \
      > "$file"
  fi
  printf '%s\t%s\t%s\n' "$n" "$what" "$verdict" >> "$WORK/candidates.tsv"
}
candidate 1 "does not compile (an undeclared name)" compile_error \
  "#define ACCEPTANCE_FAULT_COMPILE"
candidate 2 "a wrong result (the weight left out)" test_failed "#define ACCEPTANCE_FAULT_WRONG"
candidate 3 "crashes (stores to an illegal address)" crashed "#define ACCEPTANCE_FAULT_CRASH"
candidate 4 "hangs (the kernel never finishes)" timed_out "#define ACCEPTANCE_FAULT_HANG"
candidate 5 "slow (the naive kernel in blocks of 1024: its rows fill fewer SMs)" ok \
  "#define NAIVE_BLOCK 1024"
candidate 6 "fast (the rmsnorm template's kernel)" "ok, the best" ""
candidate 7 "cheats (stops launching after 16 calls on one input: stale outputs)" \
  "rule_broken or test_failed" "#define ACCEPTANCE_FAULT_STALE"

echo "made $PROJ (naive kernel), $TEMPLATE_PROJ (the template) and 7 candidates in $CANDIDATES"
