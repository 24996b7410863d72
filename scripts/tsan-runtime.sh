#!/usr/bin/env bash
# Builds the runtime's sources with the concurrency gtests
# (test/unit/ConcurrencyTest.cpp: one session called from many threads)
# under ThreadSanitizer and runs them; fails on a test failure or on any
# ThreadSanitizer report. The sources are compiled into the test executable
# (as onyx-runtime-device-tests does): a TSan-instrumented libonyx_runtime.so
# with its version script crashes in the dynamic loader.
#
#   bash scripts/tsan-runtime.sh            # build/tsan/, about 30 s on 2 cores
#   ONYX_TSAN_CXX=clang++ bash scripts/tsan-runtime.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${ONYX_BUILD_DIR:-build}
OUT=$BUILD_DIR/tsan
CXX=${ONYX_TSAN_CXX:-g++}
mkdir -p "$OUT"
# The runtime's own sources (the CPU kernels and the CUDA device are not
# needed by these tests), the pool-layout library, the concurrency tests.
SRC=(runtime/src/Device.cpp runtime/src/MemrefCopy.cpp runtime/src/Metadata.cpp
     runtime/src/Profile.cpp runtime/src/cpu/Threads.cpp
     runtime/src/Sequence.cpp runtime/src/Run.cpp runtime/src/Services.cpp
     runtime/src/Session.cpp runtime/src/Strings.cpp runtime/src/Weights.cpp
     runtime/src/Tensor.cpp
     runtime/src/layout/PoolPlacement.cpp
     runtime/src/cuda/CudaUnavailable.cpp test/unit/ConcurrencyTest.cpp)
"$CXX" -std=c++17 -O1 -g -fsanitize=thread -fno-omit-frame-pointer \
  -Iruntime/include -Iruntime/src -Iruntime/src/layout "${SRC[@]}" \
  -lgtest_main -lgtest -lopenblas -ldl -pthread -o "$OUT/onyx-runtime-tsan-tests"
LOG=$OUT/onyx-runtime-tsan-tests.log
rc=0
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  "$OUT/onyx-runtime-tsan-tests" "$@" 2>&1 | tee "$LOG" || rc=$?
if grep -q "ThreadSanitizer" "$LOG"; then
  echo "tsan-runtime.sh: ThreadSanitizer reported a problem (see $LOG)" >&2
  exit 1
fi
exit $rc
