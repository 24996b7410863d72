#!/usr/bin/env bash
# Issues 14 / 15's whole matrix (bench/gpu_precision_bench.py: BERT-base,
# GPT-2 small and ResNet-50, every case, fp32 / tf32 / fp16 / bf16, eager,
# torch.compile and Onyx with and without CUDA graphs) in three device
# calls of under 10 minutes each (docs/cuda-measurements.md, "The
# residual stream in half, and in one buffer").
#
# Here (torch 1.13 exports the graphs; MLIR compiles them):
#
#   bash scripts/gpu/precision_matrix.sh build DIR
#
# There (the `run` tool, carrying DIR; about 250, 180 and 230 s):
#
#   bash scripts/gpu/precision_matrix.sh run DIR 1   # BERT b32 / b8, GPT-2 b8 s512
#   bash scripts/gpu/precision_matrix.sh run DIR 2   # the batch-1 transformer cases
#   bash scripts/gpu/precision_matrix.sh run DIR 3   # ResNet-50 b1 / b32 / b128
#   bash scripts/gpu/precision_matrix.sh run DIR 4   # issue 15's other shapes, fp32:
#                                                    # BERT b4 s333 / b8 s384, GPT-2 b1 s1024
#
# Each run writes $OUT/partN.log (the table) and $OUT/partN/precision_bench.jsonl.
# DIR holds the graphs (.onnx, no weights: the device re-creates them from
# gpu_bench's seeds), the artifacts and the runtime with libomp (about 10 MiB).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
usage="usage: precision_matrix.sh build DIR | run DIR 1|2|3|4"
mode=${1:?$usage}
dir=${2:?$usage}
if [[ $mode == build ]]; then
  py=/usr/bin/python3
  graphs=$(mktemp -d)
  $py bench/gpu_bench.py export "$graphs" --models bert,gpt2,resnet50
  mkdir -p "$dir/lib"
  # gpu_precision_bench compile copies each graph alone (no weights, no
  # checksums) and compiles it in every precision.
  $py bench/gpu_precision_bench.py compile "$graphs" "$dir/art" \
    --models bert,gpt2,resnet50 --precisions fp32,tf32,fp16,bf16
  gzip -c "${BUILD_DIR:-build}/lib/libonyx_runtime.so" >"$dir/lib/libonyx_runtime.so.gz"
  cp /usr/lib/llvm-22/lib/libomp.so.5 "$dir/lib/"
  rm -rf "$graphs"
  du -sh "$dir"
  exit 0
fi
part=${3:?$usage}
case $part in
1) cases=bert-b32-s128,bert-b8-s128,gpt2-b8-s512 ;;
2) cases=bert-b1-s128,bert-b1-s512,gpt2-b1-s128,gpt2-b1-s512 ;;
3) cases=resnet50-b1,resnet50-b32,resnet50-b128 ;;
4) cases=bert-b4-s333,bert-b8-s384,gpt2-b1-s1024 precisions=fp32 ;;
*) echo "$usage" >&2; exit 2 ;;
esac
out=${OUT:-/tmp/onyx-out}
mkdir -p "$out/part$part"
# Every call gets a fresh copy of DIR: the runtime travels gzipped.
if [[ -e $dir/lib/libonyx_runtime.so.gz ]]; then
  gunzip -f "$dir/lib/libonyx_runtime.so.gz"
fi
eval "$(bash scripts/gpu/device_python.sh "$dir/lib" --env 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 bench/gpu_precision_bench.py run "$dir/art" --cases "$cases" \
  --precisions "${precisions:-fp32,tf32,fp16,bf16}" --runs 30 --cuda-graphs --budget 420 \
  --out "$out/part$part" >"$out/part$part.log" 2>&1
grep -E "^\||first call" "$out/part$part.log"
