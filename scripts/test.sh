#!/usr/bin/env bash
# Runs every Onyx test: build, GoogleTest (CTest), lit, the Python end-to-end
# tests, and the ONNX node-suite runner on both suites (Debian's ONNX 1.12 and
# the bundled ONNX 1.23; import, static and symbolic modes) against their
# floors. Prints a summary; exits non-zero if anything failed.
#
#   bash scripts/test.sh             build, then everything
#   bash scripts/test.sh --no-build  use the existing build/
#   bash scripts/test.sh --quick     skip the node suite and the real models
#                                    (about 1 minute)
#   bash scripts/test.sh --update    also rewrite docs/supported-ops.md and
#                                    raise test/e2e/node_suite_floor.json
#                                    (both suites)
#
# See docs/testing.md.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY=/usr/bin/python3
BUILD_DIR=${ONYX_BUILD_DIR:-build}
JOBS=${ONYX_TEST_JOBS:-$(nproc)}
DO_BUILD=1
DO_NODE=1
UPDATE=0
for arg in "$@"; do
  case "$arg" in
    --no-build) DO_BUILD=0 ;;
    --quick) DO_NODE=0 ;;
    --update) UPDATE=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

LOG_DIR=$BUILD_DIR/test-logs
mkdir -p "$LOG_DIR"
NAMES=()
RESULTS=()
TIMES=()
START_ALL=$SECONDS

# step NAME COMMAND... : runs the command, tees its output to a log, records
# PASS/FAIL and the time taken.
step() {
  local name=$1; shift
  local log="$LOG_DIR/${name//[^A-Za-z0-9_.-]/_}.log"
  local t0=$SECONDS
  echo
  echo "======== $name: $*"
  if "$@" 2>&1 | tee "$log"; then
    RESULTS+=(PASS)
  else
    RESULTS+=(FAIL)
  fi
  NAMES+=("$name")
  TIMES+=($((SECONDS - t0)))
}

skip() {
  NAMES+=("$1"); RESULTS+=("SKIP ($2)"); TIMES+=(0)
}

summary() {
  # The tail of each failed step's log first: CI keeps only the end of the
  # output, and the summary alone does not say why a step failed.
  local j
  for j in "${!NAMES[@]}"; do
    if [[ ${RESULTS[$j]} == FAIL ]]; then
      echo
      echo "======== ${NAMES[$j]} failed; the last 40 lines of its log:"
      tail -n 40 "$LOG_DIR/${NAMES[$j]//[^A-Za-z0-9_.-]/_}.log"
    fi
  done
  echo
  echo "======== summary (logs in $LOG_DIR/)"
  local failed=0 i
  for i in "${!NAMES[@]}"; do
    printf '  %-22s %-28s %5ss\n' "${NAMES[$i]}" "${RESULTS[$i]}" "${TIMES[$i]}"
    [[ ${RESULTS[$i]} == FAIL ]] && failed=1
  done
  printf '  %-22s %-28s %5ss\n' total "" $((SECONDS - START_ALL))
  if [[ $failed -ne 0 ]]; then
    echo "test.sh: FAILED"
    exit 1
  fi
  echo "test.sh: all passed"
  exit 0
}

# ---- build ------------------------------------------------------------------
if [[ $DO_BUILD -eq 1 ]]; then
  step build bash scripts/build.sh
  if [[ ${RESULTS[-1]} == FAIL ]]; then
    summary
  fi
fi
if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  echo "test.sh: $BUILD_DIR/ is not configured; run scripts/build.sh" >&2
  exit 1
fi

# ---- GoogleTest through CTest -------------------------------------------------
run_ctest() {
  local dir=$BUILD_DIR
  # The top-level CMakeLists.txt should call enable_testing(); until it does,
  # CTest's files exist only below test/.
  if ! grep -qs "subdirs\|add_test" "$dir/CTestTestfile.cmake"; then
    dir=$BUILD_DIR/test
  fi
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$JOBS"
}
step gtest run_ctest

# ---- lit ----------------------------------------------------------------------
step lit cmake --build "$BUILD_DIR" --target check-onyx-lit

# ---- Python end-to-end tests ----------------------------------------------------
check_example_up_to_date() {
  local tmp rc=0
  tmp=$(mktemp -d)
  "$PY" examples/make_example.py -o "$tmp/m.onnx" >/dev/null || rc=1
  if [[ $rc -eq 0 ]] && ! cmp -s "$tmp/m.onnx" examples/mlp_classifier.onnx; then
    echo "error: examples/mlp_classifier.onnx differs from what examples/make_example.py writes"
    rc=1
  fi
  rm -rf "$tmp"
  "$PY" examples/reference.py --self-test || rc=1
  return $rc
}
step example-model check_example_up_to_date
step node-runner-selftest "$PY" test/e2e/test_node_suite_runner.py
step e2e-example "$PY" test/e2e/test_example.py
step e2e-bad-inputs "$PY" test/e2e/test_bad_inputs.py
step e2e-external-weights "$PY" test/e2e/test_external_weights.py
step e2e-data-dependent "$PY" test/e2e/test_data_dependent.py
step e2e-sequences "$PY" test/e2e/test_sequences.py
# Fused attention (docs/cuda-backend.md): one-block f32/f16/bf16 models must
# each become one onyx.attention and compile for CUDA (they run on the GPU
# only: scripts/gpu/check_attention.py synth-run).
step e2e-attention-fusion env ONYX_COMPILE="$BUILD_DIR/bin/onyx-compile" \
  "$PY" scripts/gpu/check_attention.py synth-compile "$BUILD_DIR/attention_synth"
# Chrome-trace profiles (onyx-run --profile, onyx-compile --profile) and
# compile progress (docs/runtime.md "Profiling").
step e2e-profile "$PY" test/e2e/test_profile.py
step e2e-element-types "$PY" -W ignore test/e2e/test_element_types.py
step e2e-strings "$PY" test/e2e/test_strings.py
# --precision=fp16|bf16 (onnx-convert-precision): fp32 islands on small real
# models, values against their fp32 references, a LayerNorm that would
# overflow in f16 (docs/cuda-backend.md "Precision").
step e2e-precision "$PY" test/e2e/test_precision.py -j "$JOBS"
# The Python package `onyx` from the build tree (docs/python.md).
step python-package env ONYX_BUILD_DIR="$BUILD_DIR" "$PY" -m pytest -q -p no:cacheprovider test/python
# cmake --install into a temporary prefix; a find_package(Onyx) consumer,
# a pkg-config one and the installed Python package run the example.
step install bash test/install/test_install.sh "$BUILD_DIR"
step e2e-threads "$PY" test/e2e/test_threads.py
step e2e-parallel-loops "$PY" test/e2e/test_parallel_loops.py
step e2e-cpu-target "$PY" test/e2e/test_cpu_target.py
step e2e-hostile-inputs "$PY" test/e2e/test_hostile_inputs.py
step e2e-external-data "$PY" test/e2e/test_external_data.py
# The CLI mutation campaign (test/fuzz/): its committed crashers, then a
# bounded fixed-seed run that must end without a crash or hang.
step fuzz-regressions "$PY" test/fuzz/test_fuzz_regressions.py
step fuzz-cli "$PY" test/fuzz/mutate_models.py --count 300 --seed 1 -j "$JOBS" \
  --expect-clean --results "$BUILD_DIR/fuzz_results.json"
# The importer's libFuzzer target (clang, ASan + UBSan, a build directory of
# its own; docs/testing.md "Fuzzing the importer"): every seed-corpus model
# and committed crasher once under the sanitizers, then 20,000 mutations
# (fixed seed: the same run every time).
step fuzz-importer bash scripts/fuzz-importer.sh --runs 20000 --seed 1 \
  --build-dir "$BUILD_DIR-fuzz"
# The concurrency gtests under ThreadSanitizer (docs/runtime.md, "Threads").
step tsan-runtime bash scripts/tsan-runtime.sh
# Real models (docs/real-models.md): PyTorch exports, each compiled once and run
# at 3-4 shapes; statuses must match test/e2e/real_models/expected.json.
if [[ $DO_NODE -eq 1 ]]; then
  step e2e-real-models "$PY" test/e2e/test_real_models.py \
    --expected test/e2e/real_models/expected.json \
    --data "$BUILD_DIR/real_models" --results "$BUILD_DIR/real_models_results.json"
else
  skip e2e-real-models "--quick"
fi
# The dynamo test set (docs/real-models.md): PyTorch 2.11 dynamo exports (opset
# 20) committed in test/e2e/dynamo_models/; statuses must match its expected.json.
if [[ $DO_NODE -eq 1 ]]; then
  step e2e-dynamo-models "$PY" test/e2e/test_dynamo_models.py \
    --expected test/e2e/dynamo_models/expected.json \
    --results "$BUILD_DIR/dynamo_models_results.json"
  # The transformers again with their sibling MatMuls merged (the CUDA
  # default, off for the CPU): values through the merged weights.
  step e2e-dynamo-models-merged "$PY" test/e2e/test_dynamo_models.py \
    --models hf_bert,hf_distilbert,hf_llama,hf_qwen2,hf_t5_encoder,hf_vit \
    --compile-flags=--merge-matmuls \
    --results "$BUILD_DIR/dynamo_models_merged_results.json"
  # ... and each compiles for CUDA (nothing runs: no GPU here).
  step e2e-dynamo-models-cuda-compile "$PY" test/e2e/test_dynamo_models.py --cuda-compile \
    --results "$BUILD_DIR/dynamo_models_cuda_results.json"
else
  skip e2e-dynamo-models "--quick"
  skip e2e-dynamo-models-merged "--quick"
  skip e2e-dynamo-models-cuda-compile "--quick"
fi

# ---- ONNX node suites ---------------------------------------------------------------
# Debian's 1.12 suite and the bundled 1.23 one (unpacked once into
# $BUILD_DIR/onnx-node-suite-1.23/), each against its own floors.
if [[ $DO_NODE -eq 1 ]]; then
  NODE_ARGS=(--suite all --unpack-dir "$BUILD_DIR/onnx-node-suite-1.23"
             --mode import --mode static --mode symbolic -j "$JOBS" --timeout 60
             --floor test/e2e/node_suite_floor.json
             --results "$BUILD_DIR/node_suite_results.json")
  if [[ $UPDATE -eq 1 ]]; then
    NODE_ARGS+=(--update-floor --write-docs docs/supported-ops.md)
  else
    NODE_ARGS+=(--write-docs "$BUILD_DIR/supported-ops.md")
  fi
  step node-suite "$PY" test/e2e/node_suite.py "${NODE_ARGS[@]}"
  if [[ $UPDATE -eq 0 && -f "$BUILD_DIR/supported-ops.md" ]] &&
     ! cmp -s "$BUILD_DIR/supported-ops.md" docs/supported-ops.md; then
    echo "note: docs/supported-ops.md differs from this run's $BUILD_DIR/supported-ops.md;"
    echo "      refresh it (and the floor) with: bash scripts/test.sh --no-build --update"
  fi
else
  skip node-suite "--quick"
fi

summary
