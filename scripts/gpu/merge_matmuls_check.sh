#!/usr/bin/env bash
# BERT's query, key and value projections as one GEMM (onnx-merge-sibling-
# matmuls, on by default for CUDA) against three, in one device call
# (docs/cuda-backend.md, next step 12).
#
# Here:   bash scripts/gpu/merge_matmuls_check.sh build DIR
# There:  bash scripts/gpu/merge_matmuls_check.sh run DIR   (carry DIR)
#
# build compiles the bench's BERT (bench/gpu_bench.py export, external
# weights) in fp32 and fp16 twice: DIR/art merged (the default) and
# DIR/art0 with --merge-matmuls=false. run times both with
# bench/gpu_precision_bench.py (eager, torch.compile and Onyx with CUDA
# graphs, errors against fp64; torch.compile only in the first), the cases
# where the merge should show: BERT b1 s512, b8 s128, b4 s333, b8 s384 in
# fp32 (TF32 off) and b1 s512, b32 s128 in fp16. Logs under $OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
usage="usage: merge_matmuls_check.sh build DIR | run DIR"
mode=${1:?$usage}
dir=${2:?$usage}
py=/usr/bin/python3
if [[ $mode == build ]]; then
  mkdir -p "$dir/lib"
  gzip -c "${BUILD_DIR:-build}/lib/libonyx_runtime.so" >"$dir/lib/libonyx_runtime.so.gz"
  cp /usr/lib/llvm-22/lib/libomp.so.5 "$dir/lib/"
  graphs=$(mktemp -d)
  $py bench/gpu_bench.py export "$graphs" --models bert
  $py bench/gpu_precision_bench.py compile "$graphs" "$dir/art" \
    --models bert --precisions fp32,fp16
  $py bench/gpu_precision_bench.py compile "$graphs" "$dir/art0" \
    --models bert --precisions fp32,fp16 --flags=--merge-matmuls=false
  rm -rf "$graphs"
  du -sh "$dir"
  exit 0
fi
[[ $mode == run ]] || { echo "$usage" >&2; exit 2; }
out=${OUT:-/tmp/onyx-out}
mkdir -p "$out"
[[ -e $dir/lib/libonyx_runtime.so.gz ]] && gunzip -f "$dir/lib/libonyx_runtime.so.gz"
eval "$(bash scripts/gpu/device_python.sh "$dir/lib" --env 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
set +e
for variant in art art0; do
  extra=()
  [[ $variant == art0 ]] && extra=(--no-compile)
  for spec in "fp32 bert-b1-s512,bert-b8-s128,bert-b4-s333,bert-b8-s384" \
    "fp16 bert-b1-s512,bert-b32-s128"; do
    read -r precision cases <<<"$spec"
    log="$out/$variant-$precision"
    mkdir -p "$log"
    timeout 200 python3 bench/gpu_precision_bench.py run "$dir/$variant" \
      --cases "$cases" --precisions "$precision" --runs 30 --cuda-graphs \
      --budget 150 "${extra[@]}" --out "$log" >"$log.log" 2>&1
    echo "$variant $precision: rc=$? ($(($(date +%s) - t0)) s)"
    grep -E "^\|" "$log.log"
  done
done
