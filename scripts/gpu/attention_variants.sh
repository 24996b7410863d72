#!/usr/bin/env bash
# Attention-kernel variants, built here and timed there (the `run` tool).
#
# Here: one libonyx_runtime.so per variant of runtime/src/cuda/attention.cu's
# compile-time knobs (ONYX_ATTENTION_STAGES, ONYX_ATTENTION_MIN_BLOCKS), plus
# the runtime at a base commit, each in OUT/NAME with libomp.so.5 beside it,
# and the synthetic attention blocks of scripts/gpu/check_attention.py:
#
#   bash scripts/gpu/attention_variants.sh build OUT [BASE_COMMIT]
#
# There (carry OUT): check_attention.py synth-run with every runtime (errors
# against fp64 and PyTorch's, then the timed blocks: fused / unfused / eager
# / SDPA), logs in $OUT/synth_NAME.log:
#
#   bash scripts/gpu/attention_variants.sh run OUT
#
# synth-run's times are wall clock per call and mostly the call's own
# overhead at these sizes; the kernels' device times come from
# `check_attention.py bench-run ART --runtime OUT/NAME/libonyx_runtime.so
# --variants fused= --no-compile --profile` with each runtime on the
# LD_LIBRARY_PATH (ART: bench/gpu_precision_bench.py compile's artifacts),
# which is how the default (one stage, min blocks 1) was chosen.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
VARIANTS="s2_b1:-DONYX_ATTENTION_STAGES=2 -DONYX_ATTENTION_MIN_BLOCKS=1
s2_b3:-DONYX_ATTENTION_STAGES=2 -DONYX_ATTENTION_MIN_BLOCKS=3
s2_b4:-DONYX_ATTENTION_STAGES=2 -DONYX_ATTENTION_MIN_BLOCKS=4
s1_b1:-DONYX_ATTENTION_STAGES=1 -DONYX_ATTENTION_MIN_BLOCKS=1"
mode=${1:?usage: attention_variants.sh build|run OUT [BASE_COMMIT]}
out=${2:?usage: attention_variants.sh build|run OUT [BASE_COMMIT]}

if [[ $mode == build ]]; then
  build=${BUILD_DIR:-build}
  nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
  mkdir -p "$out"
  # The build's own cubin / PTX are replaced by each variant's and the
  # runtime relinked (CudaAttention.cpp embeds them); attention.cu is touched
  # at the end so that the next build regenerates the default ones.
  while IFS=: read -r name flags; do
    # shellcheck disable=SC2086
    "$nvcc" -cubin -arch=sm_90 -O3 $flags runtime/src/cuda/attention.cu \
      -o "$build/runtime/attention.cubin"
    # shellcheck disable=SC2086
    "$nvcc" -ptx -arch=compute_90 -O3 $flags runtime/src/cuda/attention.cu \
      -o "$build/runtime/attention.ptx"
    cmake --build "$build" --target onyx_runtime >/dev/null
    mkdir -p "$out/$name"
    cp "$build/lib/libonyx_runtime.so" /usr/lib/llvm-22/lib/libomp.so.5 "$out/$name/"
    echo "built $out/$name ($flags)"
  done <<<"$VARIANTS"
  touch runtime/src/cuda/attention.cu
  cmake --build "$build" --target onyx_runtime >/dev/null
  if [[ -n ${3:-} ]]; then
    # The base commit's attention.cu in the same way (its own knobs).
    base=$(mktemp -d)
    git show "$3:runtime/src/cuda/attention.cu" >"$base/attention.cu"
    "$nvcc" -cubin -arch=sm_90 -O3 "$base/attention.cu" -o "$build/runtime/attention.cubin"
    "$nvcc" -ptx -arch=compute_90 -O3 "$base/attention.cu" -o "$build/runtime/attention.ptx"
    cmake --build "$build" --target onyx_runtime >/dev/null
    mkdir -p "$out/base"
    cp "$build/lib/libonyx_runtime.so" /usr/lib/llvm-22/lib/libomp.so.5 "$out/base/"
    echo "built $out/base ($3)"
    rm -rf "$base"
    touch runtime/src/cuda/attention.cu
    cmake --build "$build" --target onyx_runtime >/dev/null
  fi
  /usr/bin/python3 scripts/gpu/check_attention.py synth-compile "$out/synth"
  exit 0
fi

logs=${OUT:-/tmp/onyx-out}
mkdir -p "$logs"
for dir in "$out"/*/; do
  name=$(basename "$dir")
  [[ -f $dir/libonyx_runtime.so ]] || continue
  t0=$(date +%s)
  rc=0
  LD_LIBRARY_PATH="$dir:${LD_LIBRARY_PATH:-}" timeout 150 python3 scripts/gpu/check_attention.py \
    synth-run "$out/synth" --runtime "$dir/libonyx_runtime.so" >"$logs/synth_$name.log" 2>&1 || rc=$?
  echo "=== $name: rc $rc in $(($(date +%s) - t0)) s"
  grep -E "FAIL|error|failing|^t_|timed case" "$logs/synth_$name.log" || true
done
