#!/usr/bin/env bash
# The GPU check this branch waits for (docs/cuda-backend.md, "Key splits
# for small grids"; runtime/src/cuda/CudaBlas.cpp's timed search): one
# device call of about 9 minutes.
#
# Here:   bash scripts/gpu/attention_splits_check.sh build DIR
# There:  bash scripts/gpu/attention_splits_check.sh run DIR   (carry DIR)
#
#   1. correctness: check_attention.py synth-run with 7 forced key splits
#      (some splits get no tile), then with the launch's own choice;
#   2. BERT b1 s512, GPT-2 b1 s512, BERT b32 s128 (fp32, fp16; fused
#      attention, profiled): splits off and the heuristic's GEMMs, then
#      the launch's splits and ONYX_CUBLASLT_ALGO_SEARCH=timed;
#   2b. the fp32 cases again with ONYX_CUBLASLT_F32_MATH=bf16x9;
#   2c. batch 1 (s128, s512; fp32, fp16): the unfused artifacts against
#      the fused ones (is fusion by default no slower there?);
#   3. library_smoke.py with the timed search (values vs ONNX Runtime);
#   4. with the time left, precision_matrix.sh part 2 (the batch-1
#      transformer cases, every precision) with the timed search.
# Logs and JSON lines under $OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
usage="usage: attention_splits_check.sh build DIR | run DIR"
mode=${1:?$usage}
dir=${2:?$usage}
py=/usr/bin/python3
if [[ $mode == build ]]; then
  mkdir -p "$dir/lib" "$dir/art"
  graphs=$(mktemp -d)
  $py bench/gpu_bench.py export "$graphs" --models bert,gpt2
  for m in bert gpt2; do
    cp "$graphs/$m.onnx" "$dir/art/"
    for p in fp32 fp16; do
      build/bin/onyx-compile --target=cuda --external-weights --precision=$p \
        --fuse-attention "$dir/art/$m.onnx" -o "$dir/art/${m}_${p}_fused.so"
      build/bin/onyx-compile --target=cuda --external-weights --precision=$p \
        --fuse-attention=false "$dir/art/$m.onnx" -o "$dir/art/${m}_${p}.so"
    done
  done
  rm -rf "$graphs"
  $py scripts/gpu/check_attention.py synth-compile "$dir/synth"
  $py scripts/gpu/library_smoke.py make "$dir/smoke"
  gzip -c build/lib/libonyx_runtime.so >"$dir/lib/libonyx_runtime.so.gz"
  cp /usr/lib/llvm-22/lib/libomp.so.5 "$dir/lib/"
  bash scripts/gpu/precision_matrix.sh build "$dir/matrix"
  du -sh "$dir"
  exit 0
fi
[[ $mode == run ]] || { echo "$usage" >&2; exit 2; }
out=${OUT:-/tmp/onyx-out}
mkdir -p "$out/a" "$out/b"
[[ -e $dir/lib/libonyx_runtime.so.gz ]] && gunzip -f "$dir/lib/libonyx_runtime.so.gz"
eval "$(bash scripts/gpu/device_python.sh "$dir/lib" --env 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
lib=$dir/lib/libonyx_runtime.so
R="python3 scripts/gpu/check_attention.py"
set +e
untimed=$(python3 -c "import sys; sys.path.insert(0, 'scripts/gpu'); import check_attention as c; print(','.join(k for k in c.SYNTH if not k.startswith('t_')))")
ONYX_CUDA_ATTENTION_SPLITS=7 timeout 100 $R synth-run "$dir/synth" --runtime "$lib" \
  --cases "$untimed" >"$out/synth7.log" 2>&1
echo "synth-run, 7 splits: rc=$? ($(($(date +%s) - t0)) s)"; tail -1 "$out/synth7.log"
timeout 60 $R synth-run "$dir/synth" --runtime "$lib" \
  --cases f32_pad_s512_d64,f32_causal_s512_d64,f32_arange_s512_d64,f32_pad_d64,f16_causal_d64,bf16_arange_d64,f32_allpad_d64 \
  >"$out/synth.log" 2>&1
echo "synth-run, the launch's splits: rc=$? ($(($(date +%s) - t0)) s)"; tail -1 "$out/synth.log"
cases=bert-b1-s512,gpt2-b1-s512,bert-b32-s128
ONYX_CUDA_ATTENTION_SPLITS=1 timeout 100 $R bench-run "$dir/art" --runtime "$lib" --cases $cases \
  --precisions fp32,fp16 --variants fused=_fused --no-compile --profile --out "$out/a" >"$out/a.log" 2>&1
echo "A (no splits, heuristic GEMMs): rc=$? ($(($(date +%s) - t0)) s)"; tail -7 "$out/a.log"
ONYX_CUBLASLT_ALGO_SEARCH=timed timeout 100 $R bench-run "$dir/art" --runtime "$lib" --cases $cases \
  --precisions fp32,fp16 --variants fused=_fused --no-compile --profile --out "$out/b" >"$out/b.log" 2>&1
echo "B (splits, timed GEMMs): rc=$? ($(($(date +%s) - t0)) s)"; tail -7 "$out/b.log"
mkdir -p "$out/c"
ONYX_CUBLASLT_F32_MATH=bf16x9 timeout 60 $R bench-run "$dir/art" --runtime "$lib" --cases $cases \
  --precisions fp32 --variants fused=_fused --no-compile --profile --out "$out/c" >"$out/c.log" 2>&1
echo "C (splits, heuristic GEMMs, cuBLAS's bf16x9 fp32 emulation): rc=$? ($(($(date +%s) - t0)) s)"; tail -4 "$out/c.log"
mkdir -p "$out/d"
timeout 90 $R bench-run "$dir/art" --runtime "$lib" --cases bert-b1-s512,bert-b1-s128,gpt2-b1-s512,gpt2-b1-s128 \
  --precisions fp32,fp16 --variants unfused=,fused=_fused --no-compile --out "$out/d" >"$out/d.log" 2>&1
echo "D (batch 1, the launch's splits, heuristic GEMMs): unfused against fused: rc=$? ($(($(date +%s) - t0)) s)"; tail -10 "$out/d.log"
ONYX_CUBLASLT_ALGO_SEARCH=timed timeout 30 python3 scripts/gpu/library_smoke.py run "$dir/smoke" \
  --runtime "$lib" >"$out/smoke.log" 2>&1
echo "library_smoke, timed search: rc=$?"; tail -2 "$out/smoke.log"
left=$((540 - ($(date +%s) - t0)))
if ((left > 150)); then
  cp "$lib" "$dir/matrix/lib/"
  rm -f "$dir/matrix/lib/libonyx_runtime.so.gz"
  sed -i "s/--budget 420/--budget $((left - 60))/" scripts/gpu/precision_matrix.sh
  ONYX_CUBLASLT_ALGO_SEARCH=timed timeout $left bash scripts/gpu/precision_matrix.sh run "$dir/matrix" 2
fi
echo "done ($(($(date +%s) - t0)) s)"
