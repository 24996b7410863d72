#!/usr/bin/env bash
# The fused LayerNorm (onyx-compile --cuda-layer-norm, the CUDA default
# since 2026-12-07) on the GPU: what passed before it became the default,
# to run again when the kernels or onyx-cuda-form-layer-norm change
# (docs/cuda-backend.md, "Fused LayerNorm").
#
# Here (MLIR and the graphs are here; GRAPHS from
# `bench/gpu_bench.py export GRAPHS --models bert,gpt2`):
#
#   bash scripts/gpu/layer_norm_validation.sh build DIR GRAPHS
#
# There (the `run` tool, carrying DIR; 5-7 minutes with torch.compile):
#
#   bash scripts/gpu/layer_norm_validation.sh run DIR [--quick]
#
# run: (1) the runtime's kernels alone (check_layer_norm_kernel.py, no
# timing), (2) one-LayerNorm models and MatMul -> LayerNorm -> MatMul under
# --precision (check_layer_norm.py), (3) the dynamo models compiled with
# the flag against PyTorch (check_attention.py run), (4) the harness on
# BERT b32 s128 and GPT-2 b8 s512 in fp16 / bf16 / fp32 with and without
# the flag (torch.compile once per case and precision, in the first).
# Logs and JSON lines in $OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mode=${1:?usage: layer_norm_validation.sh build DIR GRAPHS | run DIR}
dir=${2:?usage: layer_norm_validation.sh build DIR GRAPHS | run DIR}

if [[ $mode == build ]]; then
  graphs=${3:?usage: layer_norm_validation.sh build DIR GRAPHS}
  py=/usr/bin/python3
  mkdir -p "$dir/lib"
  cp "${BUILD_DIR:-build}/lib/libonyx_runtime.so" /usr/lib/llvm-22/lib/libomp.so.5 "$dir/lib/"
  $py scripts/gpu/check_layer_norm.py compile "$dir/ln"
  # The models travel as artifacts only: `run` writes the .onnx files
  # again from the same seed (the carried folder must stay small).
  rm -f "$dir"/ln/*.onnx
  $py scripts/gpu/check_attention.py compile "$dir/dyn" --flags=--cuda-layer-norm
  $py bench/gpu_precision_bench.py compile "$graphs" "$dir/art_ln" --models bert,gpt2 \
    --precisions fp16,bf16,fp32 --flags=--cuda-layer-norm
  $py bench/gpu_precision_bench.py compile "$graphs" "$dir/art" --models bert,gpt2 \
    --precisions fp16,bf16,fp32 --flags=--cuda-layer-norm=false
  exit 0
fi

# --quick (third argument): the harness without torch.compile (eager and
# Onyx with and without the flag), for a short device budget; PRECISIONS
# (default fp16,bf16,fp32) narrows it further.
quick=${3:-}
out=${OUT:-/tmp/onyx-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
t0=$(date +%s)
rc=0
echo "=== kernels alone"
LD_LIBRARY_PATH="$dir/lib:${LD_LIBRARY_PATH:-}" python3 scripts/gpu/check_layer_norm_kernel.py \
  --runtime "$dir/lib/libonyx_runtime.so" --no-timing >"$out/ln_kernel.log" 2>&1 || rc=1
tail -3 "$out/ln_kernel.log"
eval "$(bash scripts/gpu/device_python.sh "$dir/lib" --env 2>/dev/null)"
echo "=== compiled models ($(($(date +%s) - t0)) s)"
python3 scripts/gpu/check_layer_norm.py run "$dir/ln" >"$out/ln_models.log" 2>&1 || rc=1
grep -E "FAIL|error|failing" "$out/ln_models.log" || true
echo "=== dynamo models ($(($(date +%s) - t0)) s)"
python3 scripts/gpu/check_attention.py run "$dir/dyn" --runtime "$dir/lib/libonyx_runtime.so" \
  >"$out/dyn.log" 2>&1 || rc=1
tail -11 "$out/dyn.log"
for art in art_ln art; do
  echo "=== harness, $art ($(($(date +%s) - t0)) s)"
  flags=()
  [[ $art == art || $quick == --quick ]] && flags=(--no-compile)
  mkdir -p "$out/$art"
  python3 bench/gpu_precision_bench.py run "$dir/$art" --cases bert-b32-s128,gpt2-b8-s512 \
    --precisions "${PRECISIONS:-fp16,bf16,fp32}" --runs 30 --cuda-graphs "${flags[@]}" --out "$out/$art" \
    >"$out/$art.log" 2>&1 || rc=1
  grep -E "^\|" "$out/$art.log" || tail -5 "$out/$art.log"
done
echo "done in $(($(date +%s) - t0)) s, rc $rc"
exit $rc
