#!/usr/bin/env bash
# The fp32 tensor-core GEMM (runtime/src/cuda/gemm_f32x3.cu, CudaGemm.cpp)
# on the GPU, in one device call (docs/cuda-measurements.md, "fp32 GEMMs on
# the tensor cores").
#
# Here:   bash scripts/gpu/gemm_f32x3_check.sh build DIR
# There:  bash scripts/gpu/gemm_f32x3_check.sh run DIR [PARTS]   (carry DIR)
#
#   1. check_gemm_kernel.py: the kernels alone against fp64 and SGEMM
#      (correctness, then times per transformer shape);
#   2. with ONYX_CUDA_GEMM_F32=tf32x3 (the kernel is opt-in; $GEMM
#      overrides the value):
#      library_smoke.py (values against ONNX Runtime through the runtime);
#   3. bench/gpu_precision_bench.py in fp32 (TF32 off): eager,
#      torch.compile and Onyx with graphs, errors against fp64, for
#      PARTS of precision_matrix.sh's cases (default 1,2,4).
# Logs under $OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
usage="usage: gemm_f32x3_check.sh build DIR | run DIR [PARTS]"
mode=${1:?$usage}
dir=${2:?$usage}
py=/usr/bin/python3
if [[ $mode == build ]]; then
  mkdir -p "$dir/lib"
  cp "${BUILD_DIR:-build}/runtime/gemm_f32x3.cubin" "$dir/"
  gzip -c "${BUILD_DIR:-build}/lib/libonyx_runtime.so" >"$dir/lib/libonyx_runtime.so.gz"
  cp /usr/lib/llvm-22/lib/libomp.so.5 "$dir/lib/"
  $py scripts/gpu/library_smoke.py make "$dir/smoke"
  graphs=$(mktemp -d)
  $py bench/gpu_bench.py export "$graphs" --models bert,gpt2,resnet50
  $py bench/gpu_precision_bench.py compile "$graphs" "$dir/art" \
    --models bert,gpt2,resnet50 --precisions fp32
  rm -rf "$graphs"
  du -sh "$dir"
  exit 0
fi
[[ $mode == run ]] || { echo "$usage" >&2; exit 2; }
parts=${3:-1,2,4}
out=${OUT:-/tmp/onyx-out}
mkdir -p "$out"
[[ -e $dir/lib/libonyx_runtime.so.gz ]] && gunzip -f "$dir/lib/libonyx_runtime.so.gz"
eval "$(bash scripts/gpu/device_python.sh "$dir/lib" --env 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
set +e
timeout 150 python3 scripts/gpu/check_gemm_kernel.py --cubin "$dir/gemm_f32x3.cubin" \
  >"$out/kernel.log" 2>&1
rc=$?
echo "check_gemm_kernel: rc=$rc ($(($(date +%s) - t0)) s)"
grep -E "FAIL|failing|best/sgemm|Error|error" "$out/kernel.log" | head -40
if [[ $rc != 0 && -z ${FORCE:-} ]]; then
  tail -20 "$out/kernel.log"
  exit 1
fi
# The kernels on for the rest (GEMM=tf32x3-2b: the two-blocks-per-SM ones).
export ONYX_CUDA_GEMM_F32=${GEMM:-tf32x3}
timeout 60 python3 scripts/gpu/library_smoke.py run "$dir/smoke" \
  --runtime "$dir/lib/libonyx_runtime.so" >"$out/smoke.log" 2>&1
echo "library_smoke: rc=$? ($(($(date +%s) - t0)) s)"; tail -3 "$out/smoke.log"
IFS=, read -ra ps <<<"$parts"
for part in "${ps[@]}"; do
  case $part in
  1) cases=bert-b32-s128,bert-b8-s128,gpt2-b8-s512 ;;
  2) cases=bert-b1-s128,bert-b1-s512,gpt2-b1-s128,gpt2-b1-s512 ;;
  3) cases=resnet50-b1,resnet50-b32,resnet50-b128 ;;
  4) cases=bert-b4-s333,bert-b8-s384,gpt2-b1-s1024 ;;
  esac
  mkdir -p "$out/part$part"
  timeout 200 python3 bench/gpu_precision_bench.py run "$dir/art" --cases "$cases" \
    --precisions fp32 --runs 30 --cuda-graphs --budget 180 \
    --out "$out/part$part" >"$out/part$part.log" 2>&1
  echo "part $part: rc=$? ($(($(date +%s) - t0)) s)"
  grep -E "^\|" "$out/part$part.log"
done
