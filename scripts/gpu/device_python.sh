#!/usr/bin/env bash
# Runs on the lent GPU machine (the `run` tool), in the repository root:
#
#   bash scripts/gpu/device_python.sh CARRIED_DIR
#
# Builds the onyx package's native module for that machine's python3 (its
# Python differs from the development machine's) against the carried
# libonyx_runtime.so, then runs scripts/gpu/dlpack_cuda_check.py.
# CARRIED_DIR: libonyx_runtime.so (+ the libopenblas/libgfortran it needs),
# mlp_cuda.so, mlp_cpu.so. Output under $OUT (or /tmp/onyx-out).
set -eu
CARRY=$(cd "${1:?usage: device_python.sh CARRIED_DIR}" && pwd)
OUT=${OUT:-/tmp/onyx-out}
mkdir -p "$OUT"
PKG=$(mktemp -d /tmp/onyx-pkg-XXXX)
mkdir -p "$PKG/onyx"
cp python/onyx/*.py "$PKG/onyx/"
EXT=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
c++ -O2 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) \
  -Iruntime/include python/src/module.cpp -L"$CARRY" -lonyx_runtime -ldl \
  -Wl,-rpath,"$CARRY" -o "$PKG/onyx/_onyx$EXT"
export LD_LIBRARY_PATH="$CARRY${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$PKG"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 scripts/gpu/dlpack_cuda_check.py "$CARRY" "$OUT"
