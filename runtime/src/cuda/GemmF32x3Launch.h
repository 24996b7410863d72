//===- GemmF32x3Launch.h - Which 3xTF32 GEMM kernel runs, and how -*- C++
//-*-===//
//
// Host code only (no CUDA), shared by CudaGemm.cpp and its gtest: whether
// an fp32 GEMM suits gemm_f32x3.cu's kernels, which one (TM = 128 or 64
// rows of C per block), its grid and its dynamic shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CUDA_GEMMF32X3LAUNCH_H
#define ONYX_RUNTIME_CUDA_GEMMF32X3LAUNCH_H

#include <cstdint>

namespace onyx {
namespace rt {

/// gemm_f32x3.cu's tiling (the .cu includes this header): 32 k per stage,
/// 128 columns n per block, 256 threads, three stages of A and B and two of
/// A's lo part; and the kernels' `flags` bits.
constexpr int64_t kF32x3BK = 32, kF32x3TN = 128, kF32x3Threads = 256,
                  kF32x3Stages = 3;
constexpr int64_t kF32x3Accumulate = 1, kF32x3Gelu = 2;

/// Dynamic shared memory of the kernel with `tm` rows (the .cu checks its
/// Smem::total against it: the stages, the lo tiles and 1 KiB to align the
/// base to 1024).
constexpr uint32_t gemmF32x3SharedBytes(int64_t tm, bool transB) {
  int64_t x = tm * 128;
  int64_t wPitch = transB ? kF32x3BK + 4 : kF32x3TN + 8;
  int64_t w = (transB ? kF32x3TN : kF32x3BK) * wPitch * 4;
  return uint32_t(kF32x3Stages * x + 2 * x + kF32x3Stages * w + 1024);
}

struct GemmF32x3Launch {
  bool applies = false; ///< false: cuBLASLt runs the GEMM
  int64_t tm = 0;       ///< rows of C per block: 128 or 64
  int64_t grid[3] = {0, 0, 0};
  uint32_t sharedBytes = 0;
};

/// The launch for C (m x n) = A (m x k, row stride lda) * op(B) (B n x k
/// with row stride ldb when `transB`, else k x n), `batch` entries with
/// element strides strideA / strideB, on `sms` multiprocessors; `aligned`:
/// A and B 16-byte aligned. It applies when K, N, lda and ldb (and the
/// strides of a batch) are multiples of 4 (16-byte loads), the offsets
/// within one batch entry fit 31 bits (the kernels' index math) and the
/// grid fits (batch and row tiles at most 65535). TM = 64 when its waves
/// of blocks over the SMs are fewer, counting a TM = 64 block as 0.73 of
/// a TM = 128 one: the ratio of their k-tile times on an H200 (2.07 and
/// 2.83 us, docs/cuda-measurements.md), which is latency per block, not
/// work.
/// `twoBlocks`: always TM = 64 (the kernels for two blocks per SM).
inline GemmF32x3Launch gemmF32x3Launch(bool transB, int64_t batch, int64_t m,
                                       int64_t n, int64_t k, int64_t lda,
                                       int64_t strideA, int64_t ldb,
                                       int64_t strideB, bool aligned, int sms,
                                       bool twoBlocks = false) {
  GemmF32x3Launch l;
  bool stridesOk = batch == 1 || (strideA % 4 == 0 && strideB % 4 == 0);
  if (batch <= 0 || k <= 0 || m <= 0 || n <= 0 || k % 4 || n % 4 || lda % 4 ||
      ldb % 4 || !stridesOk || !aligned || batch > 65535)
    return l;
  int64_t spanA = (m - 1) * lda + k;
  int64_t spanB = transB ? (n - 1) * ldb + k : (k - 1) * ldb + n;
  if (spanA > INT32_MAX || spanB > INT32_MAX)
    return l;
  int64_t tilesN = (n + kF32x3TN - 1) / kF32x3TN;
  auto waves = [&](int64_t tm) {
    int64_t blocks = tilesN * ((m + tm - 1) / tm) * batch;
    return double((blocks + sms - 1) / sms);
  };
  l.tm = twoBlocks || (sms > 0 && waves(64) * 0.73 < waves(128)) ? 64 : 128;
  int64_t tilesM = (m + l.tm - 1) / l.tm;
  if (tilesM > 65535)
    return l;
  l.applies = true;
  l.grid[0] = tilesN;
  l.grid[1] = tilesM;
  l.grid[2] = batch;
  l.sharedBytes = gemmF32x3SharedBytes(l.tm, transB);
  return l;
}

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_CUDA_GEMMF32X3LAUNCH_H
