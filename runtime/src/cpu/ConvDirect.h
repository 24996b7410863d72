//===- ConvDirect.h - Direct (implicit-GEMM) 2-d convolutions --*- C++ -*-===//
//
// The 2-d convolutions of a CNN's body (1x1, 3x3, strided or not) computed
// straight from the input, without a column matrix or OpenBLAS's packing:
// ConvDirect.cpp. AVX-512 hosts only; elsewhere, and for
// the shapes it does not take, Conv.cpp's im2col + sgemm path runs them.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_CONVDIRECT_H
#define ONYX_RUNTIME_CPU_CONVDIRECT_H

#include "cpu/Conv2d.h"

namespace onyx::cpu {

/// Whether the AVX-512 kernels are on: the host has AVX-512F and
/// ONYXRT_CPU_DIRECT_CONV is not 0 (the test and benchmark switch back to
/// the im2col, OpenBLAS and generic depthwise paths).
bool directEnabled();

/// Whether convDirect computes this convolution: the host has AVX-512F (and
/// ONYXRT_CPU_DIRECT_CONV is not 0); any kernel, stride, padding and
/// dilation of a 2-d convolution of one group.
bool directApplies(const Conv2d &conv);

/// The convolution, its (position, output channel) blocks split across the
/// pool (Threads.h); each output element is one thread's, summed over
/// (c, kh, kw) in that order whatever the thread count and blocking. x and
/// the residual must not overlap y.
void convDirect(const Conv2d &conv, const float *x, const float *w,
                const ConvEpilogue &epilogue, float *y);

/// Whether gemmDirect computes a product of these extents (the kernel is on:
/// AVX-512F, ONYXRT_CPU_DIRECT_CONV not 0).
bool gemmDirectApplies(int64_t m, int64_t n, int64_t k);

/// C = A B (or C += A B when accumulating), row-major, untransposed: A m x k
/// (lda), B k x n (ldb), C m x n (ldc); the same kernel as a 1x1
/// convolution, split across the pool, each element summed over k in order
/// by one thread (the same bits for every thread count). C must not overlap
/// A or B.
void gemmDirect(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                const float *b, int64_t ldb, bool accumulate, float *c,
                int64_t ldc);

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_CONVDIRECT_H
