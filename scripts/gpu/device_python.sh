#!/usr/bin/env bash
# Runs on the lent GPU machine (the `run` tool), in the repository root:
#
#   bash scripts/gpu/device_python.sh CARRIED_DIR [COMMAND ARGS...]
#
# Builds the onyx package's native module for that machine's python3 (its
# Python differs from the development machine's) against the carried
# libonyx_runtime.so, puts the package on PYTHONPATH and the carried folder
# on LD_LIBRARY_PATH, then runs COMMAND (default: python3
# scripts/gpu/dlpack_cuda_check.py CARRIED_DIR $OUT), e.g.
#
#   bash scripts/gpu/device_python.sh SUITE python3 scripts/gpu/run_suite.py SUITE
#   bash scripts/gpu/device_python.sh DIR python3 bench/gpu_bench.py run DIR/art ...
#
# With COMMAND `--env` it prints the exports instead (for a script that runs
# several commands: eval "$(bash scripts/gpu/device_python.sh DIR --env)").
#
# CARRIED_DIR: libonyx_runtime.so and libomp.so.5 (LLVM's OpenMP runtime,
# the CPU kernels' thread pool, which the GPU machine lacks: copy
# /usr/lib/llvm-22/lib/libomp.so.5 next to the runtime; scripts/gpu/
# build_suite.py does), (+ the libopenblas/libgfortran it needs when the
# machine lacks them), and what COMMAND reads (the default check:
# mlp_cuda.so, mlp_cpu.so). Output under $OUT (or /tmp/onyx-out).
set -eu
CARRY=$(cd "${1:?usage: device_python.sh CARRIED_DIR [COMMAND ARGS...]}" && pwd)
shift
if [ ! -e "$CARRY/libomp.so.5" ] && ! ldconfig -p 2>/dev/null | grep -q 'libomp\.so\.5 '; then
  echo "error: $CARRY has no libomp.so.5 and this machine has none: copy" \
    "/usr/lib/llvm-22/lib/libomp.so.5 next to libonyx_runtime.so" >&2
  exit 1
fi
OUT=${OUT:-/tmp/onyx-out}
export OUT
mkdir -p "$OUT"
PKG=$(mktemp -d /tmp/onyx-pkg-XXXX)
mkdir -p "$PKG/onyx"
cp python/onyx/*.py "$PKG/onyx/"
EXT=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
c++ -O2 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) \
  -Iruntime/include python/src/module.cpp -L"$CARRY" -lonyx_runtime -ldl \
  -Wl,-rpath,"$CARRY" -o "$PKG/onyx/_onyx$EXT"
export LD_LIBRARY_PATH="$CARRY${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$PKG${PYTHONPATH:+:$PYTHONPATH}"
if [ "${1:-}" = "--env" ]; then
  printf 'export PYTHONPATH=%q LD_LIBRARY_PATH=%q\n' "$PYTHONPATH" "$LD_LIBRARY_PATH"
  exit 0
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ $# -eq 0 ]; then
  set -- python3 scripts/gpu/dlpack_cuda_check.py "$CARRY" "$OUT"
fi
"$@"
