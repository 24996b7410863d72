/*===- onyx_cpu_conv.h - onyxrt_cpu_conv_f32's CPU-only flags -------------===*
 *
 * What onyxrt_cpu_conv_f32 (onyx_services.h; runtime/src/cpu/Conv.cpp) reads
 * beyond the flags of onyx_abi.h, shared by the runtime and the CPU target's
 * onyx-cpu-lower-convolutions only (kept out of onyx_abi.h, which most of
 * the tree includes).
 *
 * Padding: `dims`' pads... are the begin pads of each spatial dim, `in...`
 * the unpadded input's extents; input positions outside [0, in) read 0 (the
 * end pads follow from out...). The artifact passes the unpadded input
 * when it can, instead of materializing the padded copy.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONYX_ONYX_CPU_CONV_H
#define ONYX_ONYX_CPU_CONV_H

#include "onyx/onyx_abi.h"

#include <stdint.h>

/* act(v) = min(max(v, lo), hi) (ONNX Clip, e.g. ReLU6; NaN stays NaN) after
 * the bias and residual; lo and hi are floats whose bits are the int64 values
 * dims[4 + 6 * spatialRank] and dims[5 + 6 * spatialRank] (low 32 bits). */
#define ONYXRT_CONV_CLIP 8

/* y's images are `dims[k]` floats apart instead of G * M * out... (y is the
 * channel slice [c0, c0 + G * M) of a larger [N, C', out...] buffer, e.g. a
 * Concat's output the convolution writes in place), with k = 4 + 6 *
 * spatialRank, plus 2 with ONYXRT_CONV_CLIP. x and the residual stay
 * dense. */
#define ONYXRT_CONV_Y_IMAGE_STRIDE 16

/* Max pooling of dense row-major f32 buffers (the ONNX MaxPool lowering's
 * window generic; without ONYXRT_POOL_PADDED its input already padded, every
 * window inside it):
 *   y[P, out...] = max(y or init, max over the window of x[P, in...])
 * with P = N * C planes. `dims` holds 1 + 5 * spatialRank values: P, then
 * per spatial dim in..., kernel..., out..., strides..., dilations...; with
 * ONYXRT_POOL_INIT y starts as the float whose bits are `init` (the fill
 * before the pool), else as y's contents. NaN propagates (arith.maximumf).
 * With ONYXRT_POOL_PADDED x is the unpadded input: in... are its extents,
 * and `dims` holds spatialRank more values, the begin pads, then the float
 * bits of the padding's fill value; a tap outside [0, in) combines the fill
 * (the padded copy's value there). Cannot fail. */
#define ONYXRT_FN_CPU_MAXPOOL_F32 "onyxrt_cpu_maxpool_f32"
#define ONYXRT_POOL_INIT 1
#define ONYXRT_POOL_PADDED 2
#ifdef __cplusplus
extern "C" {
#endif
__attribute__((visibility("default"))) void
onyxrt_cpu_maxpool_f32(int32_t flags, int64_t spatialRank, const int64_t *dims,
                       int64_t init, const float *x, float *y);

/* GEMMs of CPU artifacts (onyx-lower-contractions-to-blas: MatMul, Gemm):
 * cblas_sgemm's and cblas_dgemm's signature and meaning (order 101
 * row-major or 102 column-major, transposes 111 / 112), the product split
 * across the CPU target's thread pool (onyxrt_cpu_set_threads), each block
 * of rows or columns of C one single-threaded OpenBLAS call
 * (runtime/src/cpu/Gemm.cpp). */
#define ONYXRT_FN_CPU_SGEMM "onyxrt_cpu_sgemm"
#define ONYXRT_FN_CPU_DGEMM "onyxrt_cpu_dgemm"
__attribute__((visibility("default"))) void
onyxrt_cpu_sgemm(int32_t order, int32_t transA, int32_t transB, int32_t m,
                 int32_t n, int32_t k, float alpha, const float *a, int32_t lda,
                 const float *b, int32_t ldb, float beta, float *c,
                 int32_t ldc);
__attribute__((visibility("default"))) void
onyxrt_cpu_dgemm(int32_t order, int32_t transA, int32_t transB, int32_t m,
                 int32_t n, int32_t k, double alpha, const double *a,
                 int32_t lda, const double *b, int32_t ldb, double beta,
                 double *c, int32_t ldc);

/* Batched GEMMs (MatMul with batch dims): the product above for every index
 * of `batchRank` batch dims. `batch` holds 4 x batchRank int64 values: the
 * extents, then the element strides of A, of B and of C along each batch dim
 * (0 where an operand is broadcast); a, b and c point at index 0. When each
 * product is too small to split, whole products go to the pool's threads
 * (each one single-threaded OpenBLAS call, as with one thread); otherwise
 * they run one after the other, each split as onyxrt_cpu_sgemm does. */
#define ONYXRT_FN_CPU_SGEMM_BATCHED "onyxrt_cpu_sgemm_batched"
#define ONYXRT_FN_CPU_DGEMM_BATCHED "onyxrt_cpu_dgemm_batched"
__attribute__((visibility("default"))) void
onyxrt_cpu_sgemm_batched(int32_t batchRank, const int64_t *batch, int32_t order,
                         int32_t transA, int32_t transB, int32_t m, int32_t n,
                         int32_t k, float alpha, const float *a, int32_t lda,
                         const float *b, int32_t ldb, float beta, float *c,
                         int32_t ldc);
__attribute__((visibility("default"))) void
onyxrt_cpu_dgemm_batched(int32_t batchRank, const int64_t *batch, int32_t order,
                         int32_t transA, int32_t transB, int32_t m, int32_t n,
                         int32_t k, double alpha, const double *a, int32_t lda,
                         const double *b, int32_t ldb, double beta, double *c,
                         int32_t ldc);
#ifdef __cplusplus
}
#endif

#endif /* ONYX_ONYX_CPU_CONV_H */
