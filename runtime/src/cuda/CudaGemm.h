//===- CudaGemm.h - fp32 GEMMs on the tensor cores (3xTF32) -----*- C++ -*-===//
//
// onyxrt_cuda_gemm's fp32 path on Hopper (CudaBlas.cpp asks it first): the
// kernels of gemm_f32x3.cu: fp32 accuracy on the tensor cores, whose rate is
// 2.7x SGEMM's in principle; not yet faster in practice (opt-in).
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CUDA_CUDAGEMM_H
#define ONYX_RUNTIME_CUDA_CUDAGEMM_H

#include "CudaDevice.h"

#include <cstdint>
#include <string>

namespace onyx {
namespace rt {

/// What gemmF32x3 did.
enum class F32x3Result {
  NotApplicable, ///< the shape, layout or device does not suit: use cuBLASLt
  Done,          ///< launched
  Failed,        ///< `error` says why
};

/// C (m x n, row stride ldc) = A (m x k) * op(B) (+ C when `accumulate`)
/// (+ bias[n]) (GELU when `gelu`), fp32, batched by `batch` with element
/// strides; op(B) = B^T when `transB` (B stored n x k). Row-major, A not
/// transposed. Applies on compute capability 9.0 when ONYX_CUDA_GEMM_F32 is
/// `tf32x3` (opt-in: slower than SGEMM so far, docs/cuda-backend.md), K,
/// N, lda, ldb (and strides when batched) are multiples of 4, A, B are
/// 16-byte aligned and their element offsets fit 31 bits.
F32x3Result gemmF32x3(CudaDevice &device, bool transB, bool accumulate,
                      bool gelu, int64_t batch, int64_t m, int64_t n, int64_t k,
                      const void *a, int64_t lda, int64_t strideA,
                      const void *b, int64_t ldb, int64_t strideB, void *c,
                      int64_t ldc, int64_t strideC, const void *bias,
                      const char *label, std::string &error);

/// ONYX_CUDA_GEMM_F32: "cublas" (the default: cuBLASLt's SGEMM), "tf32x3"
/// (one block per SM, TM = 128 or 64) or "tf32x3-2b" (TM = 64 blocks with
/// registers capped for two per SM; an experiment, not yet timed), in
/// that order; read once per process.
enum class F32GemmChoice { Cublas, Tf32x3, Tf32x3TwoBlocks };
/// False with `error` set for another value.
bool f32GemmChoice(F32GemmChoice &choice, std::string &error);

} // namespace rt
} // namespace onyx

#endif // ONYX_RUNTIME_CUDA_CUDAGEMM_H
