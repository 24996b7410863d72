#!/usr/bin/env bash
# Configures build/ (Ninja, Release) when needed and builds everything.
# Equivalent to the documented contract:
#   cmake -S . -B build -G Ninja && cmake --build build
# Extra arguments are passed to `cmake --build` (e.g. `--target onyx-opt`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${ONYX_BUILD_DIR:-build}
if [[ ! -f "$BUILD_DIR/build.ninja" || ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$BUILD_DIR" "$@"
