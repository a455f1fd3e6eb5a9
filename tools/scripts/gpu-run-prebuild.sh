# Sourced by gpu-run.sh: the builds that run on the GPU machine's CPUs beside its GPU steps.
# Uses gpu-run.sh's WORK, OUT, DRY, TEMPLATES, TESTS, BENCHES and TEMPLATE_DIRS.

# The command that scaffolds template $1 into $2, checks and builds it (build options: $3).
init_and_build() {
  echo "kbuild init '${1//_/-}-demo' --template '$1' --dir '$2' && kbuild -C '$2' check && \
kbuild -C '$2' build ${3:-}"
}
# A GPU_RUN_DEFINES entry's project and prebuild name: proj-<template>-<macros>.
variant_name() { local v="$1-$2"; echo "${v//[,=]/-}"; }
# prebuild NAME TEMPLATE TESTS BUILD-OPTIONS: starts the build of project $WORK/proj-NAME
# (its test binaries too when TESTS is 1 and the mode tests), detached; its exit status lands
# in $WORK/prebuild-NAME.rc, its log in $OUT/NAME.prebuild.log.
prebuild() {
  local name="$1" t="$2" tests="$3" opts="$4" proj="$WORK/proj-$1" binaries=""
  rm -rf "$proj" "$WORK/prebuild-$name.rc"
  [[ $TESTS == 1 && $tests == 1 ]] && binaries+=" && kbuild -C '$proj' test --build-only $opts"
  [[ $BENCHES == 1 ]] && binaries+=" && kbuild -C '$proj' bench --build-only $opts"
  setsid bash -c "$(init_and_build "$t" "$proj" "$opts") $binaries; \
    echo \$? > '$WORK/prebuild-$name.rc'" > "$OUT/$name.prebuild.log" 2>&1 < /dev/null &
  echo $! > "$WORK/prebuild-$name.pid"
}
# waited_build NAME: the step's command that waits for prebuild NAME and shows its log.
waited_build() {
  echo "while [[ ! -f '$WORK/prebuild-$1.rc' ]]; do sleep 1; done; \
cat '$OUT/$1.prebuild.log'; exit \$(cat '$WORK/prebuild-$1.rc')"
}
# Builds run on the CPUs while the GPU steps before the templates run: every template's
# init, check, build (and its test and bench binaries, when this mode runs them) starts now,
# two compile jobs each, and so does each GPU_RUN_DEFINES variant's, in a project of its own
# (switching one project's macros recompiles it between steps); each template's step waits
# for its build and shows its log. A dry run only lists the variants. GPU_RUN_PREBUILD=0
# builds each one in its step instead.
start_prebuilds() {
  rm -f "$WORK"/prebuild-*.pid
  # The variants of templates this run covers; the same macros listed twice (two filters)
  # share one project and one build (a test step builds the test binaries it lacks).
  PREBUILD_VARIANTS=()
  local names=" "
  if [[ $TEMPLATES == 1 ]]; then
    for entry in ${GPU_RUN_DEFINES:-}; do
      IFS=: read -r dt defs _ <<< "$entry"
      [[ "$names" == *" $(variant_name "$dt" "$defs") "* ]] && continue
      for tdir in "${TEMPLATE_DIRS[@]}"; do
        [[ "$(basename "$tdir")" == "$dt" ]] || continue
        PREBUILD_VARIANTS+=("$entry"); names+="$(variant_name "$dt" "$defs") "
      done
    done
  fi
  if [[ $DRY == 1 && ${#PREBUILD_VARIANTS[@]} -gt 0 ]]; then
    for entry in "${PREBUILD_VARIANTS[@]}"; do
      IFS=: read -r dt defs _ <<< "$entry"
      echo "would build on the CPUs: proj-$(variant_name "$dt" "$defs")"
    done
  fi
  if [[ $DRY == 0 && ${GPU_RUN_PREBUILD:-1} == 1 &&
        $(( ${#TEMPLATE_DIRS[@]} + ${#PREBUILD_VARIANTS[@]} )) -gt 1 ]]; then
    for tdir in "${TEMPLATE_DIRS[@]}"; do
      t="$(basename "$tdir")"
      prebuild "$t" "$t" 1 "-j 2"
    done
    for entry in "${PREBUILD_VARIANTS[@]}"; do
      IFS=: read -r dt defs dfilter dtest <<< "$entry"
      dopts="-j 2"; for d in ${defs//,/ }; do dopts+=" --define '$d'"; done
      prebuild "$(variant_name "$dt" "$defs")" "$dt" "$([[ "$dtest" == notest ]] && echo 0 || echo 1)" \
        "$dopts"
    done
  fi
}
