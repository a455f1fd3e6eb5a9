#!/usr/bin/env bash
# Configures and builds kbuild and its unit tests into _build/ (incremental).
# Progress (CMake's and Ninja's lines) goes to stderr, so a caller that keeps stdout quiet still
# shows that the first build, several minutes, is moving; stdout gets only the binary's path.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${KBUILD_BUILD_DIR:-$ROOT/_build}"
if [[ ! -f "$BUILD/build.ninja" ]]; then
  echo "build-kbuild: configuring $BUILD (first build: a few minutes)" >&2
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
fi
echo "build-kbuild: building kbuild in $BUILD" >&2
cmake --build "$BUILD" >&2
echo "build-kbuild: $BUILD/tools/kbuild/kbuild"
