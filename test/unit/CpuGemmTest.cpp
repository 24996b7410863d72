//===- CpuGemmTest.cpp - onyxrt_cpu_{s,d}gemm and the thread pool ---------===//
//
// The split GEMMs of the CPU target (runtime/src/cpu/Gemm.cpp) against a
// reference in double, with every transpose, both orders, leading
// dimensions larger than the matrices, shapes split by rows and by columns
// and ones too small to split, with 1-4 threads. The split results are
// within fp32 rounding of the whole product's, not always bit-identical:
// OpenBLAS picks its kernels by the product's size (e.g. its small-matrix
// kernels), so a block may round differently than the whole product. Also
// the same GEMMs from several caller threads at once (each caller's team
// from the one pool), and the convolution and pooling kernels at sizes the
// pool splits: depthwise convolutions and max pooling bit-identical across
// thread counts, the GEMM-based convolutions within rounding.
//
//===----------------------------------------------------------------------===//

#include "onyx/onyx_cpu_conv.h"
#include "onyx/onyx_runtime.h"
#include "onyx/onyx_services.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

constexpr int kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kTrans = 112;

/// Restores the thread count at the end of a test.
struct ThreadsGuard {
  int32_t before = onyxrt_cpu_get_threads();
  ~ThreadsGuard() { onyxrt_cpu_set_threads(before); }
};

template <typename T> std::vector<T> randomVector(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(n);
  for (T &x : v)
    x = T(dist(gen));
  return v;
}

struct GemmCase {
  int order, ta, tb, m, n, k, pad; // pad: extra leading-dimension elements
};

template <typename T>
void gemm(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a,
          int lda, const T *b, int ldb, T beta, T *c, int ldc) {
  if constexpr (std::is_same_v<T, float>)
    onyxrt_cpu_sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc);
  else
    onyxrt_cpu_dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc);
}

/// Runs the case with `threads` threads; checks it against the double
/// reference and returns C.
template <typename T> std::vector<T> runGemm(const GemmCase &g, int threads) {
  onyxrt_cpu_set_threads(threads);
  bool row = g.order == kRowMajor;
  // Stored extents (rows x cols in storage order) of op(A) = m x k etc.
  auto storedCols = [&](int r, int c, bool trans) {
    // Row-major: a stored row has c (or r when transposed) elements.
    return row ? (trans ? r : c) : (trans ? c : r);
  };
  auto storedRows = [&](int r, int c, bool trans) {
    return row ? (trans ? c : r) : (trans ? r : c);
  };
  bool ta = g.ta == kTrans, tb = g.tb == kTrans;
  int lda = storedCols(g.m, g.k, ta) + g.pad;
  int ldb = storedCols(g.k, g.n, tb) + g.pad;
  int ldc = (row ? g.n : g.m) + g.pad;
  auto a = randomVector<T>(size_t(storedRows(g.m, g.k, ta)) * lda, 1);
  auto b = randomVector<T>(size_t(storedRows(g.k, g.n, tb)) * ldb, 2);
  auto c = randomVector<T>(size_t(row ? g.m : g.n) * ldc, 3);
  // Element (i, j) of op(A) etc.
  auto at = [&](const std::vector<T> &v, int ld, bool trans, int i, int j) {
    if (trans)
      std::swap(i, j);
    return double(row ? v[size_t(i) * ld + j] : v[size_t(j) * ld + i]);
  };
  auto cIndex = [&](int i, int j) {
    return row ? size_t(i) * ldc + j : size_t(j) * ldc + i;
  };
  T alpha = T(0.75), beta = T(-0.5);
  std::vector<double> ref(c.size());
  for (size_t i = 0; i < c.size(); ++i)
    ref[i] = double(c[i]);
  for (int i = 0; i < g.m; ++i)
    for (int j = 0; j < g.n; ++j) {
      double sum = 0;
      for (int p = 0; p < g.k; ++p)
        sum += at(a, lda, ta, i, p) * at(b, ldb, tb, p, j);
      ref[cIndex(i, j)] =
          double(alpha) * sum + double(beta) * ref[cIndex(i, j)];
    }
  gemm<T>(g.order, g.ta, g.tb, g.m, g.n, g.k, alpha, a.data(), lda, b.data(),
          ldb, beta, c.data(), ldc);
  double eps = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  double tol = eps * std::sqrt(double(g.k) + 1) * 4;
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], ref[i], tol) << "element " << i;
  return c;
}

template <typename T> void checkAcrossThreads(const GemmCase &g) {
  ThreadsGuard guard;
  // runGemm checks each against the double reference.
  for (int threads : {1, 2, 3, 4}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads, m " << g.m
                                      << ", n " << g.n << ", k " << g.k);
    runGemm<T>(g, threads);
  }
}

const GemmCase kCases[] = {
    // Split by columns (n > m), by rows (m >= n), and too small to split.
    {kRowMajor, kNoTrans, kNoTrans, 64, 1000, 96, 0},
    {kRowMajor, kNoTrans, kNoTrans, 700, 50, 130, 3},
    {kRowMajor, kTrans, kNoTrans, 300, 257, 64, 5},
    {kRowMajor, kNoTrans, kTrans, 129, 515, 77, 0},
    {kRowMajor, kTrans, kTrans, 400, 400, 33, 1},
    {kRowMajor, kNoTrans, kNoTrans, 7, 9, 5, 2},
    {kRowMajor, kNoTrans, kNoTrans, 1, 3000, 200, 0},
    {kColMajor, kNoTrans, kNoTrans, 333, 222, 111, 4},
    {kColMajor, kTrans, kTrans, 100, 600, 40, 0},
};

TEST(CpuGemm, SingleAcrossThreads) {
  for (const GemmCase &g : kCases)
    checkAcrossThreads<float>(g);
}

/// C = A B^T (beta 0) or C += A B^T (beta 1) with alpha 1 and A of 1-4
/// rows: runtime/src/cpu/Gemv.cpp's kernel on AVX-512 hosts (OpenBLAS
/// elsewhere). Against a double reference, and the same bits for every
/// thread count (each element is one thread's dot product in a fixed order).
TEST(CpuGemm, FewRowsByTransposedB) {
  ThreadsGuard guard;
  for (int m : {1, 2, 3, 4})
    for (int n : {1, 5, 1000})
      for (int k : {1, 15, 16, 17, 1280})
        for (float beta : {0.0f, 1.0f}) {
          SCOPED_TRACE(::testing::Message()
                       << "m " << m << ", n " << n << ", k " << k << ", beta "
                       << beta);
          int lda = k + 3, ldb = k + 1, ldc = n + 2;
          auto a = randomVector<float>(size_t(m) * lda, 11);
          auto b = randomVector<float>(size_t(n) * ldb, 12);
          auto c0 = randomVector<float>(size_t(m) * ldc, 13);
          std::vector<float> first;
          for (int threads : {1, 2, 3}) {
            onyxrt_cpu_set_threads(threads);
            std::vector<float> c = c0;
            onyxrt_cpu_sgemm(kRowMajor, kNoTrans, kTrans, m, n, k, 1.0f,
                             a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
            double tol = 1e-5 * std::sqrt(double(k) + 1) * 4;
            for (int i = 0; i < m; ++i)
              for (int j = 0; j < n; ++j) {
                double ref = beta * double(c0[size_t(i) * ldc + j]);
                for (int p = 0; p < k; ++p)
                  ref += double(a[size_t(i) * lda + p]) *
                         double(b[size_t(j) * ldb + p]);
                ASSERT_NEAR(c[size_t(i) * ldc + j], ref, tol)
                    << "(" << i << ", " << j << ")";
              }
            // Padding columns of C untouched.
            for (int i = 0; i < m; ++i)
              for (int j = n; j < ldc; ++j)
                ASSERT_EQ(c[size_t(i) * ldc + j], c0[size_t(i) * ldc + j]);
            if (first.empty())
              first = c;
            else
              ASSERT_EQ(0, std::memcmp(first.data(), c.data(),
                                       c.size() * sizeof(float)))
                  << threads << " threads";
          }
        }
}

TEST(CpuGemm, DoubleAcrossThreads) {
  for (const GemmCase &g : kCases)
    checkAcrossThreads<double>(g);
}

TEST(CpuGemm, EmptyIsANoOp) {
  float c = 5.0f, a = 1.0f, b = 1.0f;
  onyxrt_cpu_sgemm(kRowMajor, kNoTrans, kNoTrans, 0, 4, 4, 1.0f, &a, 4, &b, 4,
                   0.0f, &c, 4);
  onyxrt_cpu_sgemm(kRowMajor, kNoTrans, kNoTrans, 4, 0, 4, 1.0f, &a, 4, &b, 1,
                   0.0f, &c, 1);
  EXPECT_EQ(c, 5.0f);
}

/// onyxrt_cpu_sgemm_batched over a [2, 3] batch, A broadcast along the
/// second batch dim (stride 0), B transposed, C with its own strides:
/// every product against the double reference, and bit-identical for 1-4
/// threads (whole small products per thread: the same calls as one thread).
TEST(CpuGemm, BatchedAcrossThreads) {
  ThreadsGuard guard;
  const int m = 17, n = 40, k = 24, b0 = 2, b1 = 3;
  auto a = randomVector<float>(size_t(b0) * m * k, 11);
  auto b = randomVector<float>(size_t(b0) * b1 * n * k, 12);
  const int64_t batch[8] = {b0,         b1,     // extents
                            m * k,      0,      // A: broadcast along dim 1
                            b1 * n * k, n * k,  // B
                            b1 * m * n, m * n}; // C
  std::vector<float> first;
  for (int threads : {1, 2, 3, 4}) {
    onyxrt_cpu_set_threads(threads);
    std::vector<float> c(size_t(b0) * b1 * m * n, 0.5f);
    onyxrt_cpu_sgemm_batched(2, batch, kRowMajor, kNoTrans, kTrans, m, n, k,
                             1.0f, a.data(), k, b.data(), k, 1.0f, c.data(), n);
    for (int i0 = 0; i0 < b0; ++i0)
      for (int i1 = 0; i1 < b1; ++i1)
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            double sum = 0.5;
            for (int p = 0; p < k; ++p)
              sum +=
                  double(a[size_t(i0) * m * k + size_t(i) * k + p]) *
                  double(b[(size_t(i0) * b1 + i1) * n * k + size_t(j) * k + p]);
            EXPECT_NEAR(c[(size_t(i0) * b1 + i1) * m * n + size_t(i) * n + j],
                        sum, 1e-4)
                << "batch " << i0 << "," << i1 << " element " << i << "," << j;
          }
    if (first.empty())
      first = c;
    else
      EXPECT_TRUE(c == first) << threads << " threads";
  }
}

/// A weight shared by every product (B's batch strides 0) and A's and C's
/// rows continuing across the batch dims (torch's [seq, batch, d] x [d, e]
/// projections): the runtime folds the batch into the rows of one product.
/// Against the double reference with 1 and 2 threads, with a batch dim
/// that cannot fold (A's rows padded) in front of two that can.
TEST(CpuGemm, BatchedSharedWeightFoldsIntoRows) {
  ThreadsGuard guard;
  const int m = 3, n = 70, k = 50, b0 = 2, b1 = 5, b2 = 4, padRows = 1;
  // A: [b0][b1 * b2 * m + padRows rows][k]: dims 1 and 2 fold, dim 0 not.
  const int64_t aPlane = int64_t(b1 * b2 * m + padRows) * k;
  auto a = randomVector<float>(size_t(b0) * aPlane, 21);
  auto b = randomVector<float>(size_t(k) * n, 22);
  const int64_t batch[12] = {b0,
                             b1,
                             b2, // extents
                             aPlane,
                             b2 * m * k,
                             m * k, // A
                             0,
                             0,
                             0, // B: shared
                             b1 * b2 * m * n,
                             b2 * m * n,
                             m * n}; // C
  for (int threads : {1, 2}) {
    onyxrt_cpu_set_threads(threads);
    std::vector<float> c(size_t(b0) * b1 * b2 * m * n, 0.25f);
    onyxrt_cpu_sgemm_batched(3, batch, kRowMajor, kNoTrans, kNoTrans, m, n, k,
                             1.0f, a.data(), k, b.data(), n, 1.0f, c.data(), n);
    for (int i0 = 0; i0 < b0; ++i0)
      for (int r = 0; r < b1 * b2 * m; ++r)
        for (int j = 0; j < n; ++j) {
          double sum = 0.25;
          for (int p = 0; p < k; ++p)
            sum += double(a[size_t(i0) * aPlane + size_t(r) * k + p]) *
                   double(b[size_t(p) * n + j]);
          EXPECT_NEAR(c[(size_t(i0) * b1 * b2 * m + r) * n + j], sum, 1e-4)
              << threads << " threads, batch " << i0 << " row " << r
              << " column " << j;
        }
  }
}

TEST(CpuGemm, ConcurrentCallers) {
  // Four threads of the caller, each splitting its GEMMs across a team of
  // two: every result as the one of a lone caller with two threads.
  ThreadsGuard guard;
  GemmCase g{kRowMajor, kNoTrans, kNoTrans, 96, 700, 120, 0};
  std::vector<float> want = runGemm<float>(g, 2);
  int lda = g.k, ldb = g.n, ldc = g.n;
  auto a = randomVector<float>(size_t(g.m) * lda, 1);
  auto b = randomVector<float>(size_t(g.k) * ldb, 2);
  std::vector<std::vector<float>> got(4);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        got[t] = randomVector<float>(size_t(g.m) * ldc, 3);
        onyxrt_cpu_sgemm(g.order, g.ta, g.tb, g.m, g.n, g.k, 0.75f, a.data(),
                         lda, b.data(), ldb, -0.5f, got[t].data(), ldc);
        if (got[t] != want)
          return;
      }
    });
  for (std::thread &t : callers)
    t.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_TRUE(got[t] == want) << "caller " << t;
}

TEST(CpuThreads, SetAndGet) {
  ThreadsGuard guard;
  EXPECT_EQ(onyxrt_cpu_set_threads(3), 3);
  EXPECT_EQ(onyxrt_cpu_get_threads(), 3);
  int32_t all = onyxrt_cpu_set_threads(0);
  EXPECT_GE(all, 1);
  EXPECT_EQ(onyxrt_cpu_set_threads(-5), all);
  EXPECT_EQ(onyxrt_cpu_set_threads(1), 1);
}

int64_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return int64_t(b);
}

/// onyxrt_cpu_conv_f32 on one 2-D case (pads 1 each side for 3x3) with
/// `threads` threads.
std::vector<float> runConv(int64_t n, int64_t c, int64_t m, int64_t g,
                           int64_t h, int64_t w, int64_t k, int64_t stride,
                           int32_t flags, bool residual, int threads) {
  onyxrt_cpu_set_threads(threads);
  int64_t pad = k / 2;
  int64_t oh = (h + 2 * pad - k) / stride + 1,
          ow = (w + 2 * pad - k) / stride + 1;
  auto x = randomVector<float>(size_t(n * c * h * w), 4);
  auto wt = randomVector<float>(size_t(m * (c / g) * k * k), 5);
  auto bias = randomVector<float>(size_t(m), 6);
  auto res = randomVector<float>(size_t(n * m * oh * ow), 7);
  auto y = randomVector<float>(size_t(n * m * oh * ow), 8);
  std::vector<int64_t> dims = {n,
                               c,
                               m,
                               g,
                               h,
                               w,
                               k,
                               k,
                               oh,
                               ow,
                               pad,
                               pad,
                               stride,
                               stride,
                               1,
                               1,
                               floatBits(0.0f),
                               floatBits(6.0f)};
  onyxrt_cpu_conv_f32(flags, 2, dims.data(), x.data(), wt.data(), bias.data(),
                      residual ? res.data() : nullptr, y.data());
  return y;
}

TEST(CpuThreads, ConvolutionsAcrossThreads) {
  ThreadsGuard guard;
  struct ConvCase {
    int64_t n, c, m, g, h, w, k, stride;
    int32_t flags;
    bool residual;
  };
  const ConvCase cases[] = {
      // One image: the band's column matrix and GEMM split (by pixels, then
      // by output channels).
      {1, 32, 48, 1, 28, 28, 3, 1, ONYXRT_CONV_RELU, false},
      {1, 64, 256, 1, 7, 7, 3, 1, 0, true},
      // 1x1 in place, split by pixels and by channels.
      {1, 64, 96, 1, 30, 30, 1, 1, ONYXRT_CONV_CLIP, false},
      {1, 256, 512, 1, 7, 7, 1, 1, ONYXRT_CONV_RELU, true},
      // Several images, groups: whole image-groups per thread.
      {4, 16, 32, 1, 20, 20, 3, 2, 0, false},
      {1, 32, 32, 4, 24, 24, 3, 1, ONYXRT_CONV_ACCUMULATE, false},
      // Depthwise: channels split.
      {1, 64, 64, 64, 40, 40, 3, 1, ONYXRT_CONV_CLIP, false},
      {2, 48, 48, 48, 33, 31, 3, 2, ONYXRT_CONV_RELU, true},
  };
  for (const ConvCase &cc : cases) {
    std::vector<float> one = runConv(cc.n, cc.c, cc.m, cc.g, cc.h, cc.w, cc.k,
                                     cc.stride, cc.flags, cc.residual, 1);
    bool depthwise = cc.c == cc.g && cc.m == cc.g;
    for (int threads : {2, 3}) {
      std::vector<float> many =
          runConv(cc.n, cc.c, cc.m, cc.g, cc.h, cc.w, cc.k, cc.stride, cc.flags,
                  cc.residual, threads);
      SCOPED_TRACE(::testing::Message()
                   << threads << " threads, conv n " << cc.n << " c " << cc.c
                   << " m " << cc.m << " g " << cc.g << " " << cc.h << "x"
                   << cc.w);
      ASSERT_EQ(one.size(), many.size());
      if (depthwise) {
        // No GEMM: the same operations per element.
        EXPECT_TRUE(one == many);
        continue;
      }
      // The GEMMs' blocks: within fp32 rounding (see the top).
      double tol = 1e-6 * std::sqrt(double(cc.c / cc.g * cc.k * cc.k));
      for (size_t i = 0; i < one.size(); ++i)
        ASSERT_NEAR(one[i], many[i], tol * (1.0 + std::fabs(one[i])))
            << "element " << i;
    }
  }
}

TEST(CpuThreads, MaxPoolBitIdenticalAcrossThreads) {
  ThreadsGuard guard;
  int64_t planes = 64, in = 57, k = 3, st = 2, out = (in - k) / st + 1;
  auto x = randomVector<float>(size_t(planes * in * in), 9);
  std::vector<int64_t> dims = {planes, in, in, k, k, out, out, st, st, 1, 1};
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3}) {
    onyxrt_cpu_set_threads(threads);
    std::vector<float> y(size_t(planes * out * out));
    onyxrt_cpu_maxpool_f32(ONYXRT_POOL_INIT, 2, dims.data(),
                           floatBits(-INFINITY), x.data(), y.data());
    results.push_back(y);
  }
  // Against a direct loop, then across thread counts.
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < out; ++i)
      for (int64_t j = 0; j < out; ++j) {
        float want = -INFINITY;
        for (int64_t a = 0; a < k; ++a)
          for (int64_t b = 0; b < k; ++b)
            want = std::max(want,
                            x[size_t((p * in + i * st + a) * in + j * st + b)]);
        ASSERT_EQ(results[0][size_t((p * out + i) * out + j)], want);
      }
  EXPECT_TRUE(results[0] == results[1]);
  EXPECT_TRUE(results[0] == results[2]);
}

} // namespace
