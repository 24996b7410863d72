#!/usr/bin/env bash
# Runs on the lent GPU machine (the `run` tool), in the repository root:
#
#   bash scripts/gpu/device_run.sh CARRIED_DIR
#
# CARRIED_DIR holds suite.tar.xz from scripts/gpu/build_suite.py (CUDA
# artifacts of the node suite compiled here, their test data and
# libonyx_runtime.so). Runs, and writes under $OUT (or /tmp/onyx-out):
#   1. the whole suite on the GPU, static and symbolic artifacts, with other
#      shapes of the symbolic ones checked against ONNX Runtime (timed);
#   2. a subset with ONYX_CUDA_FORCE_PTX=1 (the driver JITs the embedded PTX
#      instead of loading the cubin);
#   3. the error path: a session for a device that does not exist;
#   4. with CARRIED_DIR/bench (scripts/gpu/bench_elementwise.py build), the
#      elementwise throughput of one kernel against PyTorch eager.
# Prints short summaries; full logs and JSON are in $OUT.
set -u
CARRY=${1:?usage: device_run.sh CARRIED_DIR}
OUT=${OUT:-/tmp/onyx-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=python3

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
$PY -c "import numpy, onnx; print('numpy', numpy.__version__, 'onnx', onnx.__version__)"
$PY -c "import onnxruntime; print('onnxruntime', onnxruntime.__version__)" 2>/dev/null || echo "no onnxruntime"
date -u +%Y-%m-%dT%H:%M:%SZ

WORK=$(mktemp -d /tmp/onyx-suite-XXXX)
tar -xJf "$CARRY/suite.tar.xz" -C "$WORK" || exit 1
SUITE=$WORK/suite
# The onyx package, built for this python3 against the suite's runtime.
eval "$(bash scripts/gpu/device_python.sh "$SUITE" --env 2>"$OUT/module_build.txt")" || {
  echo "building the onyx module failed:"; tail -5 "$OUT/module_build.txt"; exit 1; }

echo "== 1. node suite on the GPU (cubins)"
$PY scripts/gpu/run_suite.py "$SUITE" --shapes --json "$OUT/cuda_results.json" \
    --max-list 400 > "$OUT/cuda_log.txt" 2>&1
sed -n '/^mode /,/^$/p' "$OUT/cuda_log.txt"
grep -E "^other shapes|timed large|^median session|^ran " "$OUT/cuda_log.txt"
echo "-- not passing (first 40 of $(grep -c '^  \(static\|symbolic\) ' "$OUT/cuda_log.txt"))"
grep -E '^  (static|symbolic) ' "$OUT/cuda_log.txt" | cut -c1-210 | head -40
echo "-- other shapes not passing"
sed -n '/^other shapes/,/timed large/p' "$OUT/cuda_log.txt" | grep -E ' (wrong|error) ' | cut -c1-200 | head -15

echo "== 2. PTX fallback (ONYX_CUDA_FORCE_PTX=1)"
ONYX_CUDA_FORCE_PTX=1 $PY scripts/gpu/run_suite.py "$SUITE" \
    -k '^test_(add|add_bcast|mul|relu|sigmoid|tanh|clip|softmax_axis_1|reduce_sum_keepdims_random|where_example|cast_FLOAT_to_FLOAT16|pow)$' \
    --json "$OUT/ptx_results.json" > "$OUT/ptx_log.txt" 2>&1
sed -n '/^mode /,/^$/p' "$OUT/ptx_log.txt"; grep -E "^  (static|symbolic) |^median|^ran " "$OUT/ptx_log.txt" | head -12

if [ -d "$CARRY/bench" ]; then
  echo "== 4. elementwise throughput (chain models) vs PyTorch eager"
  $PY scripts/gpu/bench_elementwise.py run "$CARRY/bench" --n $((1 << 24)) 2>&1 | tee "$OUT/bench_log.txt"
fi

echo "== 3. no such device (device_id=99)"
$PY scripts/gpu/run_suite.py "$SUITE" -k '^test_add$' --mode static --device-id 99 \
    > "$OUT/nodevice_log.txt" 2>&1
grep -E "^  static" "$OUT/nodevice_log.txt" | cut -c1-220
echo "== done"
