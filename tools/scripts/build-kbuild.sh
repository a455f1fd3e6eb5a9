#!/usr/bin/env bash
# Configures and builds kbuild and its unit tests into _build/ (incremental).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${KBUILD_BUILD_DIR:-$ROOT/_build}"
if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD"
echo "build-kbuild: $BUILD/tools/kbuild/kbuild"
