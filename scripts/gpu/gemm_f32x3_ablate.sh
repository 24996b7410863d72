#!/usr/bin/env bash
# What a k-tile of the 3xTF32 GEMM (runtime/src/cuda/gemm_f32x3.cu) spends
# its time on, in one device call: the kernel built with ONYX_F32X3_ABLATE
# bits that each drop one piece of the k-loop (results wrong; timing only),
# timed against the real kernel and SGEMM (docs/cuda-measurements.md,
# "fp32 GEMMs on the tensor cores").
#
# Here:   bash scripts/gpu/gemm_f32x3_ablate.sh build DIR
# There:  bash scripts/gpu/gemm_f32x3_ablate.sh run DIR   (carry DIR)
#
# Bits (gemm_f32x3.cu): 1 no A split pass, 2 no B fragment split, 4 no
# wgmma wait in the loop (ptxas then waits before the adds: C7517), 8 one
# product (hi * hi) instead of three, 16 no barrier at the end of a k-tile,
# 32 no cp.async wait and barrier before the split; 3, 11 and 63 combine
# them (63: the loop's issue cost alone).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
usage="usage: gemm_f32x3_ablate.sh build DIR | run DIR"
mode=${1:?$usage}
dir=${2:?$usage}
variants="0 1 2 4 8 16 32 3 11 63"
if [[ $mode == build ]]; then
  mkdir -p "$dir"
  for v in $variants; do
    "${NVCC:-/usr/local/cuda/bin/nvcc}" -cubin \
      -gencode=arch=compute_90a,code=sm_90a -O3 -DONYX_F32X3_ABLATE="$v" \
      runtime/src/cuda/gemm_f32x3.cu -o "$dir/ablate_$v.cubin"
  done
  ls "$dir"
  exit 0
fi
[[ $mode == run ]] || { echo "$usage" >&2; exit 2; }
out=${OUT:-/tmp/onyx-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
set +e
for v in $variants; do
  echo "== ONYX_F32X3_ABLATE=$v"
  timeout 120 python3 scripts/gpu/check_gemm_kernel.py --cubin "$dir/ablate_$v.cubin" \
    --time-only --kernels onyx_gemm_f32x3_m128_nn,onyx_gemm_f32x3_m64_nn \
    >"$out/ablate_$v.log" 2>&1
  echo "rc=$?"
  grep -E "^ *[0-9]+ +[0-9]+ +[0-9]+ " "$out/ablate_$v.log"
done
