//===- Gemm.h - GEMMs split across the CPU target's pool --------*- C++ -*-===//
//
// A row-major C[M, N] += A[M, K] * B[K, N] split into blocks of rows or of
// columns of C, one per thread of the pool (Threads.h), each block one
// single-threaded OpenBLAS call. Rows when N <= M (each thread then reads
// all of B, K x N, and its rows of A), columns otherwise (all of A, its
// columns of B): the operand every thread packs is the smaller one. Block
// edges are multiples of 16 (OpenBLAS's register tiles). Every element of C
// is computed by one call with the same sequence of K blocks, so the result
// does not depend on the split.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_RUNTIME_CPU_GEMM_H
#define ONYX_RUNTIME_CPU_GEMM_H

#include "cpu/Threads.h"

#include <cstdint>

extern "C" {
void cblas_sgemm(int order, int transA, int transB, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb,
                 float beta, float *c, int ldc);
void cblas_dgemm(int order, int transA, int transB, int m, int n, int k,
                 double alpha, const double *a, int lda, const double *b,
                 int ldb, double beta, double *c, int ldc);
}

namespace onyx::cpu {

constexpr int kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kTrans = 112;

/// The split of an M x N x K product: `pieces` blocks of rows (byRows) or of
/// columns, block i covering [edge(i), edge(i + 1)).
struct GemmSplit {
  int pieces = 1;
  bool byRows = true;
  int64_t extent = 0; // M (byRows) or N

  int64_t edge(int i) const;
};

/// The split parallelGemm uses for an M x N x K product (one piece when the
/// product is small, with one thread, or inside a parallel region).
GemmSplit planGemm(int64_t m, int64_t n, int64_t k);

/// body(m0, m1, n0, n1) for each block of `split`, on the pool's threads.
template <typename F>
void forEachBlock(const GemmSplit &split, int64_t m, int64_t n, F &&body) {
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      int64_t lo = split.edge(int(i)), hi = split.edge(int(i) + 1);
      if (lo >= hi)
        continue;
      if (split.byRows)
        body(lo, hi, int64_t(0), n);
      else
        body(int64_t(0), m, lo, hi);
    }
  };
  if (split.pieces <= 1)
    run(0, 1);
  else
    runPieces(
        split.pieces, split.pieces,
        [](void *context, int64_t begin, int64_t end) {
          (*static_cast<decltype(run) *>(context))(begin, end);
        },
        &run);
}

} // namespace onyx::cpu

#endif // ONYX_RUNTIME_CPU_GEMM_H
