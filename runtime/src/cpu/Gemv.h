//===- Gemv.h - Products of a few rows by a transposed matrix --*- C++ -*-===//
//
// C[m, n] = A[m, k] B[n, k]^T for m of at most kGemvMaxRows rows: a
// classifier's last layer (Gemm with transB = 1 at batch 1, [1, 2048] x
// [1000, 2048]^T in ResNet-50). Such a product reads each weight once and
// is bound by that read; OpenBLAS's sgemv (AVX2 kernels on hosts its old
// builds do not know) and the direct GEMM kernel (8 rows per block, and B
// untransposed) both leave most of the bandwidth unused. Gemv.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_GEMV_H
#define ONYX_RUNTIME_CPU_GEMV_H

#include <cstdint>

namespace onyx::cpu {

/// Rows of A the kernel takes, at most.
constexpr int64_t kGemvMaxRows = 4;

/// Whether gemvTransB computes a product of these extents: the host has
/// AVX-512F (and ONYXRT_CPU_DIRECT_CONV is not 0), 1 <= m <= kGemvMaxRows.
bool gemvTransBApplies(int64_t m, int64_t n, int64_t k);

/// C = A B^T (or C += A B^T when accumulating): A m x k (lda), B n x k
/// (ldb), C m x n (ldc), row-major. Columns of C are split across the pool;
/// each element is one thread's dot product over k in a fixed order (16
/// partial sums, then their sum in a fixed tree): the same bits for every
/// thread count. C must not overlap A or B.
void gemvTransB(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                const float *b, int64_t ldb, bool accumulate, float *c,
                int64_t ldc);

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_GEMV_H
