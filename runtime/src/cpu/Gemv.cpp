//===- Gemv.cpp - Products of a few rows by a transposed matrix -----------===//
//
// gemvTransB (Gemv.h): C[i, j] = dot(A[i, :], B[j, :]) for the m <= 4 rows
// of A. Four rows of B at a time are streamed once, 16 floats per load,
// against every row of A (m x 4 zmm accumulators); each accumulator's 16
// lanes are then summed in a fixed tree (_mm512_reduce_add_ps). The columns
// of C are cut into ranges of whole 4-row groups, one per thread.
//
//===----------------------------------------------------------------------===//

#include "cpu/Gemv.h"
#include "cpu/Conv2d.h"
#include "cpu/ConvDirect.h"
#include "cpu/Threads.h"

#include <algorithm>

namespace onyx::cpu {
namespace {

constexpr int kRowsB = 4;                  // rows of B streamed together
constexpr int64_t kMinPieceWork = 1 << 16; // multiply-adds per thread

/// C[0..M, j0..j0+R) for R <= kRowsB rows of B starting at row j0.
template <int M, int R>
__attribute__((target("avx512f"))) void
dotBlock(int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
         bool accumulate, float *c, int64_t ldc) {
  __m512 acc[M][R];
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      acc[i][r] = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    __m512 x[M];
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i)
      x[i] = _mm512_loadu_ps(a + i * lda + p);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m512 w = _mm512_loadu_ps(b + r * ldb + p);
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i)
        acc[i][r] = _mm512_fmadd_ps(x[i], w, acc[i][r]);
    }
  }
  if (p < k) {
    __mmask16 tail = tailMask(k - p);
    __m512 x[M];
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i)
      x[i] = _mm512_maskz_loadu_ps(tail, a + i * lda + p);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m512 w = _mm512_maskz_loadu_ps(tail, b + r * ldb + p);
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i)
        acc[i][r] = _mm512_fmadd_ps(x[i], w, acc[i][r]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float s = _mm512_reduce_add_ps(acc[i][r]);
      c[i * ldc + r] = accumulate ? c[i * ldc + r] + s : s;
    }
}

template <int M>
void gemvRows(int64_t j0, int64_t j1, int64_t k, const float *a, int64_t lda,
              const float *b, int64_t ldb, bool accumulate, float *c,
              int64_t ldc) {
  int64_t j = j0;
  for (; j + kRowsB <= j1; j += kRowsB)
    dotBlock<M, kRowsB>(k, a, lda, b + j * ldb, ldb, accumulate, c + j, ldc);
  for (; j < j1; ++j)
    dotBlock<M, 1>(k, a, lda, b + j * ldb, ldb, accumulate, c + j, ldc);
}

} // namespace

bool gemvTransBApplies(int64_t m, int64_t n, int64_t k) {
  // The direct kernels' switch (ONYXRT_CPU_DIRECT_CONV) covers this one.
  return gemmDirectApplies(m, n, k) && m <= kGemvMaxRows;
}

void gemvTransB(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                const float *b, int64_t ldb, bool accumulate, float *c,
                int64_t ldc) {
  const int64_t groups = (n + kRowsB - 1) / kRowsB;
  const int64_t groupWork = kRowsB * m * k;
  parallelFor(groups, std::max<int64_t>(1, kMinPieceWork / groupWork),
              [&](int64_t g0, int64_t g1) {
                int64_t j0 = g0 * kRowsB, j1 = std::min(n, g1 * kRowsB);
                switch (m) {
                case 1:
                  gemvRows<1>(j0, j1, k, a, lda, b, ldb, accumulate, c, ldc);
                  break;
                case 2:
                  gemvRows<2>(j0, j1, k, a, lda, b, ldb, accumulate, c, ldc);
                  break;
                case 3:
                  gemvRows<3>(j0, j1, k, a, lda, b, ldb, accumulate, c, ldc);
                  break;
                default:
                  gemvRows<4>(j0, j1, k, a, lda, b, ldb, accumulate, c, ldc);
                  break;
                }
              });
}

} // namespace onyx::cpu
