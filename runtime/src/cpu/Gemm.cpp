//===- Gemm.cpp - GEMMs split across the CPU target's pool ----------------===//
//
// onyxrt_cpu_sgemm / onyxrt_cpu_dgemm (onyx_cpu_conv.h): cblas_{s,d}gemm's
// signature, called by CPU artifacts for MatMul and Gemm
// (onyx-lower-contractions-to-blas). The product is split across the pool
// (Gemm.h), each block one single-threaded OpenBLAS call.
// onyxrt_cpu_{s,d}gemm_batched: MatMuls with batch dims (attention's
// per-head products), whole small products across the pool; batch dims
// along which B is shared and A's rows continue are one product's rows.
//
//===----------------------------------------------------------------------===//

#include "cpu/Gemm.h"
#include "cpu/ConvDirect.h"
#include "cpu/Gemv.h"

#include "onyx/onyx_cpu_conv.h"

#include <algorithm>
#include <climits>

namespace onyx::cpu {
namespace {

/// Block edges: multiples of OpenBLAS's register tiles.
constexpr int64_t kAlign = 16;
/// Multiply-adds per block below which a thread is not worth its fork and
/// join (about 5 us of one core's GEMM).
constexpr int64_t kMinBlockWork = int64_t(1) << 17;

} // namespace

int64_t GemmSplit::edge(int i) const {
  if (i >= pieces)
    return extent;
  int64_t e = extent * i / pieces;
  return std::min(extent, (e + kAlign / 2) / kAlign * kAlign);
}

GemmSplit planGemm(int64_t m, int64_t n, int64_t k) {
  GemmSplit split;
  if (m <= 0 || n <= 0)
    return split;
  // Rows when the rows' operand B is the smaller one to share, and when
  // there are enough rows to split.
  split.byRows = n <= m ? m >= 2 * kAlign : n < 2 * kAlign;
  split.extent = split.byRows ? m : n;
  int64_t work = m * n * std::max<int64_t>(k, 1);
  int64_t byWork = work / kMinBlockWork;
  int64_t byExtent = split.extent / kAlign;
  split.pieces = plannedPieces(std::min(byWork, byExtent), 1);
  return split;
}

} // namespace onyx::cpu

namespace {

using namespace onyx::cpu;

/// A row-major product (m, n > 0) as planned by planGemm.
template <typename T, typename Blas>
void runSplitGemm(const GemmSplit &split, Blas blas, int32_t order,
                  int32_t transA, int32_t transB, int32_t m, int32_t n,
                  int32_t k, T alpha, const T *a, int32_t lda, const T *b,
                  int32_t ldb, T beta, T *c, int32_t ldc) {
  if (split.pieces <= 1) {
    blas(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  bool ta = transA == kTrans, tb = transB == kTrans;
  forEachBlock(split, m, n,
               [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
                 const T *ap = a + (ta ? m0 : m0 * lda);
                 const T *bp = b + (tb ? n0 * ldb : n0);
                 blas(order, transA, transB, int(m1 - m0), int(n1 - n0), k,
                      alpha, ap, lda, bp, ldb, beta, c + m0 * ldc + n0, ldc);
               });
}

template <typename T, typename Blas>
void splitGemm(Blas blas, int32_t order, int32_t transA, int32_t transB,
               int32_t m, int32_t n, int32_t k, T alpha, const T *a,
               int32_t lda, const T *b, int32_t ldb, T beta, T *c,
               int32_t ldc) {
  if (order == kColMajor) {
    // C^T = B^T A^T in row-major.
    splitGemm(blas, kRowMajor, transB, transA, n, m, k, alpha, b, ldb, a, lda,
              beta, c, ldc);
    return;
  }
  if (m <= 0 || n <= 0)
    return;
  runSplitGemm<T>(planGemm(m, n, k), blas, order, transA, transB, m, n, k,
                  alpha, a, lda, b, ldb, beta, c, ldc);
}

} // namespace

namespace {

/// Whether the direct AVX-512 kernels compute this sgemm: row-major, A
/// untransposed, alpha 1, beta 0 or 1, C overlapping neither operand; B
/// untransposed and A of at least 8 rows (ConvDirect.h's GEMM: a block of
/// the kernel; fewer would be mostly wasted lanes), or B transposed and A of
/// at most 4 rows (Gemv.h). It does every element in k order on one thread, and
/// runs with AVX-512 FMAs where OpenBLAS may be held to AVX2 kernels
/// (OPENBLAS_CORETYPE on CPUs its old builds do not know).
bool directSgemm(int32_t order, int32_t transA, int32_t transB, int32_t m,
                 int32_t n, int32_t k, float alpha, const float *a, int32_t lda,
                 const float *b, int32_t ldb, float beta, float *c,
                 int32_t ldc) {
  if (order != kRowMajor || transA != kNoTrans || alpha != 1.0f ||
      (beta != 0.0f && beta != 1.0f) || lda < k || ldc < n)
    return false;
  auto overlaps = [&](const float *p, int64_t rows, int64_t ld, int64_t cols) {
    const float *cEnd = c + int64_t(m - 1) * ldc + n;
    const float *pEnd = p + (rows - 1) * ld + cols;
    return p < cEnd && c < pEnd;
  };
  if (transB == kTrans) {
    // A few rows by a transposed matrix (a classifier at batch 1): Gemv.h.
    if (ldb < k || !gemvTransBApplies(m, n, k) || overlaps(a, m, lda, k) ||
        overlaps(b, n, ldb, k))
      return false;
    gemvTransB(m, n, k, a, lda, b, ldb, beta == 1.0f, c, ldc);
    return true;
  }
  if (m < 8 || ldb < n || !gemmDirectApplies(m, n, k) ||
      overlaps(a, m, lda, k) || overlaps(b, k, ldb, n))
    return false;
  gemmDirect(m, n, k, a, lda, b, ldb, beta == 1.0f, c, ldc);
  return true;
}

/// cblas_sgemm's signature: the direct kernel where it applies, else
/// OpenBLAS.
void sgemmOne(int32_t order, int32_t transA, int32_t transB, int32_t m,
              int32_t n, int32_t k, float alpha, const float *a, int32_t lda,
              const float *b, int32_t ldb, float beta, float *c, int32_t ldc) {
  if (!directSgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta,
                   c, ldc))
    cblas_sgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c,
                ldc);
}

} // namespace

extern "C" void onyxrt_cpu_sgemm(int32_t order, int32_t transA, int32_t transB,
                                 int32_t m, int32_t n, int32_t k, float alpha,
                                 const float *a, int32_t lda, const float *b,
                                 int32_t ldb, float beta, float *c,
                                 int32_t ldc) {
  // The direct kernel splits the whole product across the pool itself.
  if (m > 0 && n > 0 &&
      directSgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta,
                  c, ldc))
    return;
  splitGemm<float>(sgemmOne, order, transA, transB, m, n, k, alpha, a, lda, b,
                   ldb, beta, c, ldc);
}

extern "C" void onyxrt_cpu_dgemm(int32_t order, int32_t transA, int32_t transB,
                                 int32_t m, int32_t n, int32_t k, double alpha,
                                 const double *a, int32_t lda, const double *b,
                                 int32_t ldb, double beta, double *c,
                                 int32_t ldc) {
  splitGemm<double>(cblas_dgemm, order, transA, transB, m, n, k, alpha, a, lda,
                    b, ldb, beta, c, ldc);
}

namespace {

/// Element offsets of batch index `index` (row-major over the extents).
struct BatchOffsets {
  int64_t a = 0, b = 0, c = 0;
};

BatchOffsets batchOffsets(int32_t rank, const int64_t *batch, int64_t index) {
  BatchOffsets o;
  for (int32_t d = rank - 1; d >= 0; --d) {
    int64_t extent = batch[d];
    int64_t i = index % extent;
    index /= extent;
    o.a += i * batch[rank + d];
    o.b += i * batch[2 * rank + d];
    o.c += i * batch[3 * rank + d];
  }
  return o;
}

template <typename T, typename Blas>
void batchedGemm(Blas blas, int32_t rank, const int64_t *batch, int32_t order,
                 int32_t transA, int32_t transB, int32_t m, int32_t n,
                 int32_t k, T alpha, const T *a, int32_t lda, const T *b,
                 int32_t ldb, T beta, T *c, int32_t ldc) {
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d)
    count *= batch[d];
  if (count <= 0 || m <= 0 || n <= 0)
    return;
  // Batch dims along which B is shared (stride 0) and A's and C's rows
  // continue (A untransposed, row-major: the next product's rows follow the
  // last one's, lda and ldc apart) are more rows of one product: a
  // MatMul of activations [seq, batch, d] by a weight [d, e] (torch's
  // attention projections) is one [seq * batch, d] x [d, e] GEMM, not seq
  // small ones that each read the whole weight. Innermost dims first.
  int32_t kept = rank;
  int64_t rows = m;
  if (order == kRowMajor && transA == kNoTrans) {
    for (; kept > 0; --kept) {
      int32_t d = kept - 1;
      if (batch[2 * rank + d] != 0 || batch[rank + d] != rows * lda ||
          batch[3 * rank + d] != rows * ldc ||
          rows * batch[d] > int64_t(INT32_MAX))
        break;
      rows *= batch[d];
    }
  }
  // The remaining batch dims' extents and strides, in the array's layout.
  constexpr int32_t kMaxKept = 8;
  int64_t keptBatch[4 * kMaxKept];
  if (kept < rank && kept <= kMaxKept) {
    for (int32_t part = 0; part < 4; ++part)
      for (int32_t d = 0; d < kept; ++d)
        keptBatch[part * kept + d] = batch[part * rank + d];
    batch = keptBatch;
    rank = kept;
    m = int32_t(rows);
    count = 1;
    for (int32_t d = 0; d < rank; ++d)
      count *= batch[d];
  }
  // A product the pool would split runs split, one after the other;
  // otherwise whole products per thread (the same calls as one thread).
  GemmSplit split = planGemm(m, n, k);
  if (split.pieces > 1 || count == 1) {
    for (int64_t i = 0; i < count; ++i) {
      BatchOffsets o = batchOffsets(rank, batch, i);
      if (order == kRowMajor)
        runSplitGemm<T>(split, blas, order, transA, transB, m, n, k, alpha,
                        a + o.a, lda, b + o.b, ldb, beta, c + o.c, ldc);
      else
        splitGemm<T>(blas, order, transA, transB, m, n, k, alpha, a + o.a, lda,
                     b + o.b, ldb, beta, c + o.c, ldc);
    }
    return;
  }
  int64_t work = int64_t(m) * n * std::max<int32_t>(k, 1);
  int64_t grain =
      std::max<int64_t>(1, kMinBlockWork / std::max<int64_t>(work, 1));
  parallelFor(count, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      BatchOffsets o = batchOffsets(rank, batch, i);
      blas(order, transA, transB, m, n, k, alpha, a + o.a, lda, b + o.b, ldb,
           beta, c + o.c, ldc);
    }
  });
}

} // namespace

extern "C" void
onyxrt_cpu_sgemm_batched(int32_t batchRank, const int64_t *batch, int32_t order,
                         int32_t transA, int32_t transB, int32_t m, int32_t n,
                         int32_t k, float alpha, const float *a, int32_t lda,
                         const float *b, int32_t ldb, float beta, float *c,
                         int32_t ldc) {
  batchedGemm<float>(sgemmOne, batchRank, batch, order, transA, transB, m, n, k,
                     alpha, a, lda, b, ldb, beta, c, ldc);
}

extern "C" void
onyxrt_cpu_dgemm_batched(int32_t batchRank, const int64_t *batch, int32_t order,
                         int32_t transA, int32_t transB, int32_t m, int32_t n,
                         int32_t k, double alpha, const double *a, int32_t lda,
                         const double *b, int32_t ldb, double beta, double *c,
                         int32_t ldc) {
  batchedGemm<double>(cblas_dgemm, batchRank, batch, order, transA, transB, m,
                      n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
